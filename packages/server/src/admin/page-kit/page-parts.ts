import { escapeHtml } from '@roost/forms';

/** Small pieces of page markup; every text goes through `escapeHtml`, every href too. */

export const link = (href: string, text: string, extra = ''): string =>
  `<a href="${escapeHtml(href)}"${extra}>${escapeHtml(text)}</a>`;

/**
 * A region of a page that follows the live changes of `topic` (docs/realtime.md): the page's
 * script (admin/live-script.ts) fetches the page again after a change and replaces the region.
 */
export const liveRegion = (topic: string, html: string): string =>
  `<div data-live-topic="${escapeHtml(topic)}">${html}</div><script src="/static/roost-live.js" defer></script>`;

export interface Column<T> {
  label: string;
  /** Trusted HTML of the cell (escape what it shows). */
  cell: (row: T) => string;
  /** Class of the column's cells (e.g. `num`). */
  className?: string;
}

/**
 * A table that folds into labelled blocks on a phone (`table.responsive`): each cell carries
 * its column's label.
 */
function attrsOf<T>(column: Column<T>): string {
  const cls = column.className ? ` class="${column.className}"` : '';
  return ` data-label="${escapeHtml(column.label)}"${cls}`;
}

export function table<T>(caption: string, columns: readonly Column<T>[], rows: readonly T[], empty: string): string {
  if (rows.length === 0) return `<p class="empty">${escapeHtml(empty)}</p>`;
  const head = columns.map((c) => `<th scope="col">${escapeHtml(c.label)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${columns.map((c) => `<td${attrsOf(c)}>${c.cell(row)}</td>`).join('')}</tr>`)
    .join('');
  return (
    `<table class="responsive"><caption class="visually-hidden">${escapeHtml(caption)}</caption><thead>` +
    `<tr>${head}</tr></thead><tbody>${body}</tbody></table>`
  );
}

/** "Items 21–40 of 65" with previous and next links (`href(start)` builds them). */
export function pager(
  what: string,
  page: { start: number; size: number; total: number; shown: number },
  href: (start: number) => string,
): string {
  const { start, size, total, shown } = page;
  const range =
    shown === 0
      ? `No ${what} here (${total} in all)`
      : `${what[0]?.toUpperCase()}${what.slice(1)} ${start}–${start + shown - 1} of ${total}`;
  const previous = start > 1 ? link(href(Math.max(1, start - size)), '← Previous', ' rel="prev"') : '';
  const next = start + shown <= total && shown > 0 ? link(href(start + size), 'Next →', ' rel="next"') : '';
  return `<nav class="pager" aria-label="Pages"><span>${escapeHtml(range)}</span>${previous}${next}</nav>`;
}

/** A positive integer from a query value, or the fallback. */
export function positiveInt(value: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) return fallback;
  const n = Number(value);
  return n >= 1 ? Math.min(n, max) : fallback;
}

/** The first text value of a query parameter. */
export function textParam(value: unknown): string {
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' ? one : '';
}

/** A key/value list of facts (`<dl>`), values trusted HTML. */
export function facts(rows: ReadonlyArray<readonly [label: string, html: string]>): string {
  const items = rows.map(([label, html]) => `<dt>${escapeHtml(label)}</dt><dd>${html}</dd>`);
  return `<dl class="facts">${items.join('')}</dl>`;
}
