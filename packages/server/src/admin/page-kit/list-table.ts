import { escapeHtml } from '@roost/forms';
import { RoostError } from '../../core/errors.js';
import { link, type Column } from './page-parts.js';

/**
 * The one table of the admin lists (issue 42, item 6): users, data store items, collection
 * records. Headers of sortable columns are links (`?sort=name`, again for `?sort=-name`), rows
 * may carry a checkbox for the bulk delete (page-kit/bulk-delete.ts), and the table scrolls in its
 * own box when it is wider than the page. All of it works without a script: links and forms.
 */

/** A sort the page asked for: a column's key, and the way. */
export interface SortChoice {
  key: string;
  descending: boolean;
}

/**
 * The `sort` query value (`name`, `-name`) among `keys`; empty is the list's default (undefined).
 * Anything else is refused with the keys named, before any query runs: the key is only ever
 * compared with the page's own list, never put into a query.
 */
export function sortOf(value: string, keys: readonly string[]): SortChoice | undefined {
  if (value === '') return undefined;
  const descending = value.startsWith('-');
  const key = descending ? value.slice(1) : value;
  if (!keys.includes(key))
    throw new RoostError(
      'invalid',
      'validation_failure',
      `Sort by one of ${keys.join(', ')} (a "-" in front for descending).`,
      { fields: [['sort', 'invalid']] },
    );
  return { key, descending };
}

/** `name`, or `-name`: a sort as its query value. */
export const sortParam = (sort: SortChoice): string => `${sort.descending ? '-' : ''}${sort.key}`;

/** A header that sorts by `key`: ascending first, then descending; marked when sorted by. */
export function sortHeader(label: string, key: string, sort: SortChoice | undefined, href: (s: string) => string) {
  const ascending = sort?.key === key && !sort.descending;
  const descending = sort?.key === key && sort.descending;
  const next = ascending ? `-${key}` : key;
  const mark = ascending ? ' ▲' : descending ? ' ▼' : '';
  const aria = ascending ? ' aria-sort="ascending"' : descending ? ' aria-sort="descending"' : '';
  return `<th scope="col"${aria}>${link(href(next), `${label}${mark}`, ' class="sort"')}</th>`;
}

/** A column of the list table; `sort` is the key its header sorts by (none: not sortable). */
export interface ListColumn<T> extends Column<T> {
  sort?: string;
}

export interface ListTable<T> {
  caption: string;
  columns: readonly ListColumn<T>[];
  rows: readonly T[];
  /** Said instead of an empty table. */
  empty: string;
  /** The sort in force (marked in its header). */
  sort?: SortChoice | undefined;
  /** The list's url with `sort` set to the given value (and the other state kept, from the first page). */
  sortHref: (sort: string) => string;
  /** Checkboxes named `id` for the form of this id (bulkDeleteForm): each row's value and its label. */
  select?: { form: string; value: (row: T) => string; label: (row: T) => string };
}

/** The sortable, selectable list of `rows` (`.table-scroll`: wide tables scroll, not the page). */
export function listTable<T>(t: ListTable<T>): string {
  if (t.rows.length === 0) return `<p class="empty">${escapeHtml(t.empty)}</p>`;
  const headers = t.columns.map((c) =>
    c.sort ? sortHeader(c.label, c.sort, t.sort, t.sortHref) : `<th scope="col">${escapeHtml(c.label)}</th>`,
  );
  const select = t.select;
  const head = (select ? '<th scope="col"><span class="visually-hidden">Select</span></th>' : '') + headers.join('');
  const body = t.rows
    .map((row) => {
      const box = select
        ? `<td data-label=""><input type="checkbox" name="id" value="${escapeHtml(select.value(row))}" ` +
          `aria-label="Select ${escapeHtml(select.label(row))}" form="${escapeHtml(select.form)}"></td>`
        : '';
      const cells = t.columns.map((c) => {
        const cls = c.className ? ` class="${c.className}"` : '';
        return `<td data-label="${escapeHtml(c.label)}"${cls}>${c.cell(row)}</td>`;
      });
      return `<tr>${box}${cells.join('')}</tr>`;
    })
    .join('');
  return (
    '<div class="table-scroll"><table class="responsive sortable"><caption class="visually-hidden">' +
    `${escapeHtml(t.caption)}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`
  );
}

/**
 * The form the rows' checkboxes belong to (by `form=`): it posts the checked ids with the
 * session's CSRF token to `action`, which asks before deleting (page-kit/bulk-delete.ts).
 */
export function bulkDeleteForm(id: string, action: string, csrf: string, label: string): string {
  return (
    `<form id="${escapeHtml(id)}" class="bulk" method="post" action="${escapeHtml(action)}">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">` +
    `<button type="submit" class="btn danger">${escapeHtml(label)}</button></form>` +
    // With a script: select all, the count on the button (admin/list-script.ts).
    '<script src="/static/roost-lists.js" defer></script>'
  );
}
