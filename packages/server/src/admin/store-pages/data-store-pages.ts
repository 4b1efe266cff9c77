import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, HTMLForm, type FieldConf } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { isRoostError } from '../../core/errors.js';
import type { DataStore, Item, ListQuery } from '../../datastore/index.js';
import { renderAdminPage, type AdminRequest } from '../page-kit/admin-page.js';
import { bulkDeleteForm, listTable, sortOf, sortParam, type ListColumn } from '../page-kit/list-table.js';
import { link, liveRegion, pager, positiveInt, table, textParam, type Column } from '../page-kit/page-parts.js';
import { sendHtml } from '../page-kit/page-reply.js';
import { dataStoreUrl, itemUrl, unknownStore, type StorePageContext } from './store-page-context.js';

const PAGE_SIZE = 20;
const SORTS = ['key', 'timestamp', 'value'] as const;

/** A value as a table shows it: numbers marked, long text cut (the item page shows it whole). */
export function valuePreview(value: string | number): string {
  if (typeof value === 'number') return `<span class="tag">number</span> ${escapeHtml(value)}`;
  const text = value.length > 120 ? `${value.slice(0, 119)}…` : value;
  return text === '' ? '<span class="muted">(empty)</span>' : escapeHtml(text);
}

/** The owner's user name; nobody when the item has none or the account is gone. */
export const ownerText = (item: Item) =>
  item.ownerName ? escapeHtml(item.ownerName) : '<span class="muted">(nobody)</span>';

const changedAt = (item: Item) => escapeHtml(formatTime(item.updated));

export function dataStoreOf(ctx: StorePageContext, name: string): DataStore {
  const store = ctx.deps.services.dataStores.get(name);
  if (!store) throw unknownStore('data');
  return store;
}

/** `/admin/data`: the configured data stores with their size and limits. */
async function storesPage(ctx: StorePageContext, request: FastifyRequest, reply: FastifyReply, admin: AdminRequest) {
  const { dataStores } = ctx.deps.services;
  const rows = await Promise.all(
    dataStores.names.map(async (name) => {
      const store = dataStores.get(name) as DataStore;
      const counted = await store.list(admin.principal, { size: 0 }).catch(() => null);
      return { name, store, total: counted ? String(counted.total) : '–' };
    }),
  );
  const columns: Column<(typeof rows)[number]>[] = [
    { label: 'Store', cell: (r) => link(dataStoreUrl(r.name), r.name) },
    { label: 'Items', cell: (r) => escapeHtml(r.total), className: 'num' },
    { label: 'Read by', cell: (r) => escapeHtml(r.store.options.read) },
    {
      label: 'Key / value limit',
      cell: (r) => escapeHtml(`${r.store.options.maxKeyLength} characters / ${r.store.options.maxValueBytes} bytes`),
    },
  ];
  const body = table('Data stores', columns, rows, 'No data store is configured.');
  return sendHtml(reply, renderAdminPage(request, reply, admin, { title: 'Data stores', body }));
}

/** The filter of the item list, a GET form; the sort of the headers rides along hidden. */
function filterForm(admin: AdminRequest): HTMLForm {
  return new HTMLForm({
    request: admin.form,
    method: 'GET',
    formid: 'filter',
    css_class: 'form filter',
    widget: { item_template: 'field_onecolumn', action_template: 'form_actions_onecolumn' },
    fields: [
      { id: 'prefix', name: 'Key starts with', datatype: 'string' },
      { id: 'owner', name: 'Owner', datatype: 'string', settings: { placeholder: 'name, email or id' } },
      { id: 'sort', datatype: 'hidden' },
    ],
    actions: [
      { id: 'default', method: 'startRequestGET', hidden: true },
      { id: 'filter', method: 'startRequestGET', name: 'Filter', cssClass: 'btn secondary' },
    ],
  });
}

/**
 * `/admin/data/<store>`: a page of items, filtered by key prefix and owner, sorted by a column's
 * header (`?sort=timestamp`, `?sort=-key`), checked items deleted in bulk (`…/delete`).
 */
async function itemsPage(
  ctx: StorePageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  name: string,
) {
  const store = dataStoreOf(ctx, name);
  const q = admin.form.query ?? {};
  const sort = sortOf(textParam(q.sort), SORTS);
  const query = {
    start: positiveInt(q.start, 1),
    size: positiveInt(q.size, PAGE_SIZE, store.options.maxPageSize),
    prefix: textParam(q.prefix),
    owner: textParam(q.owner).trim(),
  };
  const input: ListQuery = {
    start: query.start,
    size: query.size,
    sort: (sort?.key as ListQuery['sort']) ?? 'key',
    order: sort?.descending ? '>' : '<',
  };
  if (query.prefix) input.prefix = query.prefix;
  if (query.owner) input.owner = query.owner;

  const messages: string[] = [];
  let items: Item[] = [];
  let total = 0;
  try {
    ({ items, total } = await store.list(admin.principal, input));
  } catch (err) {
    // A filter the store refuses (a prefix longer than any key) shows as a message, not an error page.
    if (!isRoostError(err) || err.kind !== 'invalid') throw err;
    messages.push(`The filter is not valid: ${err.fields.map(([f, r]) => `${f} ${r}`).join(', ') || err.message}`);
  }

  const href = (change: { start?: number; sort?: string }) => {
    const params = new URLSearchParams();
    const state = { ...query, sort: sort ? sortParam(sort) : '', ...change };
    for (const [k, v] of Object.entries(state))
      if (v !== '' && !(k === 'size' && v === PAGE_SIZE) && !(k === 'start' && v === 1)) params.set(k, String(v));
    const text = params.toString();
    return `${dataStoreUrl(name)}${text ? `?${text}` : ''}`;
  };
  const filter = filterForm(admin);
  const { html: filterHtml } = await filter.process();
  const columns: ListColumn<Item>[] = [
    { label: 'Key', cell: (it) => link(itemUrl(name, it.id), it.key), sort: 'key' },
    { label: 'Value', cell: (it) => valuePreview(it.value), sort: 'value' },
    { label: 'Owner', cell: ownerText },
    { label: 'Changed', cell: changedAt, sort: 'timestamp' },
  ];
  const page = { start: query.start, size: query.size, total, shown: items.length };
  const pages = pager('items', page, (start) => href({ start }));
  const body =
    `<p class="actions">${link(`${dataStoreUrl(name)}/new`, 'New item', ' class="button"')} ` +
    `${link('/admin/data', 'All data stores', ' class="button secondary"')}</p>` +
    `<details class="card" ${query.prefix || query.owner ? 'open' : ''}>` +
    `<summary>Filter</summary>${filterHtml}</details>` +
    liveRegion(
      `items/${name}`,
      pages +
        listTable({
          caption: `Items of ${name}`,
          columns,
          rows: items,
          empty: query.prefix || query.owner ? 'No item matches the filter.' : 'This store has no items yet.',
          sort,
          sortHref: (next) => href({ sort: next, start: 1 }),
          select: { form: 'bulk-delete', value: (it) => String(it.id), label: (it) => it.key },
        }) +
        (items.length > 0
          ? bulkDeleteForm('bulk-delete', `${dataStoreUrl(name)}/delete`, admin.csrf, 'Delete the selected items…') +
            pages
          : ''),
    );
  return sendHtml(
    reply,
    renderAdminPage(request, reply, admin, {
      title: `Data store ${name}`,
      body,
      head: await filter.htmlHead(),
      messages,
    }),
  );
}

/** The value and its type, as the create and edit forms have them. */
export const valueFields = (store: DataStore, value: string | number | undefined): FieldConf[] => [
  {
    id: 'value',
    name: 'Value',
    datatype: 'text',
    settings: { rows: 6 },
    default: value === undefined ? '' : String(value),
    description: `Text (at most ${store.options.maxValueBytes} bytes) or a number.`,
  },
  {
    id: 'type',
    name: 'Stored as',
    datatype: 'radio',
    default: typeof value === 'number' ? 'number' : 'text',
    listItems: [
      { id: 'text', name: 'text' },
      { id: 'number', name: 'number' },
    ],
  },
];

/** Register `/admin/data` and `/admin/data/<store>`; the item pages are in data-item-pages.ts. */
export function registerDataStoreListPages(app: FastifyInstance, ctx: StorePageContext): void {
  app.get('/admin/data', async (request, reply) => {
    const admin = await ctx.admin(request, reply);
    return admin ? storesPage(ctx, request, reply, admin) : reply;
  });
  app.get<{ Params: { store: string } }>('/admin/data/:store', async (request, reply) => {
    const admin = await ctx.admin(request, reply);
    return admin ? itemsPage(ctx, request, reply, admin, request.params.store) : reply;
  });
}
