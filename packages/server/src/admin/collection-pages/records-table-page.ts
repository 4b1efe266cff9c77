import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, HTMLForm, listValue } from '@roost/forms';
import type { CollectionState, RecordPage } from '../../collections/index.js';
import { isRoostError } from '../../core/errors.js';
import { renderAdminPage, type AdminRequest } from '../page-kit/admin-page.js';
import { bulkDeleteForm, sortHeader } from '../page-kit/list-table.js';
import { link, positiveInt, textParam } from '../page-kit/page-parts.js';
import { sendHtml } from '../page-kit/page-reply.js';
import { collectionUrl, registerPage, type CollectionPageContext } from './collection-page-context.js';
import { accountIds, cellHtml, recordColumns, type RecordColumn } from './record-columns.js';

/**
 * `/admin/collections/<name>`: a page of the collection's records (issue 39, item 7). Filtered
 * by the filter language, sorted by a column's header (again: the other way), its columns
 * chosen, paged by the service's cursor; checked rows go to the bulk delete's question
 * (records-delete-page.ts). The administrator lists as the service's `list`, which no rule
 * narrows for administrators (collections/collection-access.ts `accessFor`).
 */

const PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 500;

/** The table's state, as its links and forms carry it in the query string. */
interface TableQuery {
  filter: string;
  /** A column, `-` in front for descending; empty: newest first. */
  sort: string;
  perPage: number;
  cursor: string;
  /** The columns shown, in the columns' order. */
  cols: string[];
}

function queryOf(request: AdminRequest, columns: readonly RecordColumn[]): TableQuery {
  const q = request.form.query ?? {};
  const chosen = new Set(listValue(q.cols));
  const names = columns.map((c) => c.name);
  return {
    filter: textParam(q.filter),
    sort: textParam(q.sort),
    perPage: positiveInt(q.perPage, PAGE_SIZE, MAX_PAGE_SIZE),
    cursor: textParam(q.cursor),
    cols: chosen.size ? names.filter((n) => chosen.has(n)) : names,
  };
}

/** The url of the table with some of its state changed (a new sort starts at the first page). */
function hrefOf(name: string, query: TableQuery, change: Partial<TableQuery>, columns: readonly RecordColumn[]) {
  const next = { ...query, ...change };
  const params = new URLSearchParams();
  if (next.filter) params.set('filter', next.filter);
  if (next.sort) params.set('sort', next.sort);
  if (next.perPage !== PAGE_SIZE) params.set('perPage', String(next.perPage));
  if (next.cursor) params.set('cursor', next.cursor);
  if (next.cols.length !== columns.length) for (const c of next.cols) params.append('cols', c);
  const text = params.toString();
  return `${collectionUrl(name)}${text ? `?${text}` : ''}`;
}

/** The GET form above the table: the filter, the columns, the page size; the sort rides along hidden. */
function filterForm(admin: AdminRequest, columns: readonly RecordColumn[], query: TableQuery): HTMLForm {
  // The form shows the table's state as read (its defaults filled in), not the raw query: a
  // query without `cols` shows every column, and so every box checked.
  const shown = { filter: query.filter, perPage: String(query.perPage), cols: query.cols, sort: query.sort };
  return new HTMLForm({
    request: { ...admin.form, query: shown },
    method: 'GET',
    formid: 'filter',
    css_class: 'form filter',
    widget: { item_template: 'field_onecolumn', action_template: 'form_actions_onecolumn' },
    fields: [
      {
        id: 'filter',
        name: 'Filter',
        datatype: 'string',
        size: 4096,
        settings: { placeholder: 'status = "open" && priority >= 2' },
        description: 'The filter language of docs/collection-queries.md.',
      },
      { id: 'perPage', name: 'Per page', datatype: 'number', min: 1, max: MAX_PAGE_SIZE },
      {
        id: 'cols',
        name: 'Columns',
        datatype: 'checkbox',
        listItems: columns.map((c) => ({ id: c.name, name: c.name })),
      },
      { id: 'sort', datatype: 'hidden' },
    ],
    actions: [
      { id: 'default', method: 'startRequestGET', hidden: true },
      { id: 'show', method: 'startRequestGET', name: 'Show', cssClass: 'btn secondary' },
    ],
  });
}

/** A header: sortable columns link to their sort (the page kit's header, page-kit/list-table.ts). */
function headerHtml(name: string, column: RecordColumn, query: TableQuery, columns: readonly RecordColumn[]) {
  if (!column.sortable) return `<th scope="col">${escapeHtml(column.name)}</th>`;
  const current = query.sort
    ? { key: query.sort.replace(/^-/, ''), descending: query.sort.startsWith('-') }
    : undefined;
  return sortHeader(column.name, column.name, current, (sort) => hrefOf(name, query, { sort, cursor: '' }, columns));
}

function tableHtml(
  state: CollectionState,
  query: TableQuery,
  columns: readonly RecordColumn[],
  page: RecordPage,
  names: ReadonlyMap<string, string>,
): string {
  const shown = columns.filter((c) => query.cols.includes(c.name));
  const head =
    '<th scope="col"><span class="visually-hidden">Select</span></th>' +
    shown.map((c) => headerHtml(state.name, c, query, columns)).join('');
  const rows = page.items
    .map((record) => {
      const id = escapeHtml(record.id);
      const box =
        `<td data-label=""><input type="checkbox" name="id" value="${id}" ` +
        `aria-label="Select ${id}" form="bulk-delete"></td>`;
      const cells = shown.map(
        (c) =>
          `<td data-label="${escapeHtml(c.name)}"${c.field?.kind === 'number' ? ' class="num"' : ''}>` +
          `${cellHtml(c, record, { collection: state.name, names })}</td>`,
      );
      return `<tr>${box}${cells.join('')}</tr>`;
    })
    .join('');
  return (
    '<div class="table-scroll"><table class="responsive sortable records"><caption class="visually-hidden">' +
    `Records of ${escapeHtml(state.name)}</caption><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`
  );
}

async function recordsPage(
  ctx: CollectionPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  name: string,
) {
  const state = ctx.collections.stateOf(name);
  const columns = recordColumns(state);
  const query = queryOf(admin, columns);
  let refused: string | undefined;
  let page: RecordPage = { items: [], next: null, total: 0 };
  try {
    page = await ctx.collections.list(admin.principal, name, {
      ...(query.filter.trim() ? { filter: query.filter } : {}),
      ...(query.sort ? { sort: query.sort } : {}),
      ...(query.cursor ? { cursor: query.cursor } : {}),
      perPage: query.perPage,
      total: true,
    });
  } catch (err) {
    // A filter, sort or cursor the service refuses is said above the table, with its place.
    if (!isRoostError(err) || err.kind !== 'invalid') throw err;
    refused = err.message;
  }
  const ids = accountIds(columns, page.items);
  const names = ids.length ? await ctx.deps.services.users.directory.namesOf(ids) : new Map<string, string>();
  const filter = filterForm(admin, columns, query);
  const { html: filterHtml } = await filter.process();
  const here = collectionUrl(name);
  const exportHref = (format: string) => {
    const params = new URLSearchParams({ format });
    if (query.filter) params.set('filter', query.filter);
    if (query.sort) params.set('sort', query.sort);
    return `${here}/export?${params}`;
  };
  const total = page.total ?? 0;
  const pager =
    `<nav class="pager" aria-label="Pages"><span>${escapeHtml(total)} ${total === 1 ? 'record' : 'records'}` +
    `${query.filter.trim() ? ' match the filter' : ''}</span>` +
    (query.cursor ? link(hrefOf(name, query, { cursor: '' }, columns), '← First page', ' rel="first"') : '') +
    (page.next ? link(hrefOf(name, query, { cursor: page.next }, columns), 'Next →', ' rel="next"') : '') +
    '</nav>';
  const bulk = bulkDeleteForm('bulk-delete', `${here}/delete`, admin.csrf, 'Delete the selected records…');
  const empty = query.filter.trim() ? 'No record matches the filter.' : 'This collection has no records yet.';
  const body =
    '<p class="actions">' +
    `${link(`${here}/new`, 'New record', ' class="button"')} ` +
    `${link(`${here}/schema`, 'Schema and rules', ' class="button secondary"')} ` +
    `${link(`${here}/import`, 'Import records', ' class="button secondary"')} ` +
    `Export: ${link(exportHref('csv'), 'CSV', ' download')} · ${link(exportHref('json'), 'JSON', ' download')} · ` +
    `${link(exportHref('ndjson'), 'NDJSON', ' download')}</p>` +
    `<details class="card"${query.filter || query.cols.length !== columns.length ? ' open' : ''}>` +
    `<summary>Filter and columns</summary>${filterHtml}</details>` +
    (refused ? `<div class="messages error" role="alert"><p>${escapeHtml(refused)}</p></div>` : pager) +
    (page.items.length ? tableHtml(state, query, columns, page, names) + bulk : `<p class="empty">${empty}</p>`) +
    (page.next ? pager : '');
  return sendHtml(
    reply,
    renderAdminPage(request, reply, admin, {
      title: `Collection ${name}`,
      body,
      head: await filter.htmlHead(),
    }),
  );
}

export function registerRecordsTablePage(app: FastifyInstance, ctx: CollectionPageContext): void {
  registerPage(
    app,
    ctx,
    '/admin/collections/:name',
    (request, reply, admin) => recordsPage(ctx, request, reply, admin, request.params.name),
    { methods: ['GET'] },
  );
}
