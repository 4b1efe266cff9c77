import { escapeHtml, type FormInit } from '@roost/forms';

/** Small pieces of markup the admin pages share. Everything given is escaped here. */

/** Form options every admin form shares: the page's hidden values (the CSRF token), one id per form. */
export function formBase(formid: string, hidden: Record<string, string>, action?: string): Partial<FormInit> {
  return { formid, hiddenValues: hidden, ...(action ? { action } : {}) };
}

/** Previous / next links of a paged list; `params` are kept, `start` is 1-based. */
export function pager(path: string, params: Record<string, string>, start: number, size: number, total: number): string {
  if (total <= size && start === 1) return '';
  const link = (s: number) => {
    const q = new URLSearchParams({ ...params, start: String(s) });
    return `${path}?${q.toString()}`;
  };
  const last = Math.min(start + size - 1, total);
  const prev = start > 1 ? `<a class="button secondary" rel="prev" href="${escapeHtml(link(Math.max(1, start - size)))}">Previous</a>` : '';
  const next = start + size <= total ? `<a class="button secondary" rel="next" href="${escapeHtml(link(start + size))}">Next</a>` : '';
  return `<nav class="pager" aria-label="Pages">${prev}<span>${total === 0 ? 0 : start}–${last} of ${total}</span>${next}</nav>`;
}

/** A table that folds into labelled rows on a phone; cells are trusted html (escape values first). */
export function table(columns: readonly string[], rows: readonly (readonly string[])[], empty: string): string {
  if (rows.length === 0) return `<p class="muted">${escapeHtml(empty)}</p>`;
  const head = columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('');
  const body = rows
    .map((cells) => `<tr>${cells.map((cell, i) => `<td data-label="${escapeHtml(columns[i] ?? '')}">${cell}</td>`).join('')}</tr>`)
    .join('');
  return `<div class="table-wrap"><table class="responsive"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** A link; `href` and label escaped. */
export const link = (href: string, label: string, cls?: string) =>
  `<a href="${escapeHtml(href)}"${cls ? ` class="${escapeHtml(cls)}"` : ''}>${escapeHtml(label)}</a>`;

/** A state as a small badge. */
export const badge = (text: string, kind: string) => `<span class="badge badge-${escapeHtml(kind)}">${escapeHtml(text)}</span>`;
