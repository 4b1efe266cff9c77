import { escapeHtml } from '@roost/forms';
import type { AuditFilter, AuditLog, AuditRecord } from '../../core/audit.js';
import { RoostError } from '../../core/errors.js';
import { backendGrants } from '../../core/grants.js';
import { csvField } from '../page-kit/csv-field.js';
import { link, table, textParam } from '../page-kit/page-parts.js';
import type { AdminPageRequest, AdminPages } from './admin-routes.js';
import { isoTime } from '../../core/clock.js';

/**
 * `/admin/audit`: the audit log (docs/operations.md, "Audit log"), newest first, filtered by
 * actor, action and time, a page of `SHOWN` at a time; `/admin/audit/export?format=ndjson|csv`
 * with the same filters: every matching line as a download. Times in ISO 8601 with offset.
 */

const SHOWN = 100;
/** Lines read per query while exporting. */
const EXPORT_PAGE = 1000;
/** The most lines one export holds: a larger log is exported in several time ranges. */
const EXPORT_MAX = 200_000;

/** A time of the filter: ISO 8601; without an offset (the browser's `datetime-local`) it is UTC. */
function timeParam(page: AdminPageRequest, name: 'from' | 'until'): number | undefined {
  const text = textParam(page.form.query?.[name]).trim();
  if (text === '') return undefined;
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
  if (Number.isNaN(ms))
    throw new RoostError('invalid', 'validation_failure', `${name}: not a time (ISO 8601, e.g. 2026-12-02T10:00Z).`, {
      fields: [[name, 'invalid']],
    });
  return ms;
}

function filterOf(page: AdminPageRequest): AuditFilter {
  const q = page.form.query ?? {};
  const actor = textParam(q.actor).trim();
  const action = textParam(q.action).trim();
  const from = timeParam(page, 'from');
  const until = timeParam(page, 'until');
  return {
    ...(actor ? { actor } : {}),
    ...(action ? { action } : {}),
    ...(from === undefined ? {} : { from }),
    ...(until === undefined ? {} : { until }),
  };
}

/** The filter's query string (for the export links and the next page). */
function queryOf(page: AdminPageRequest, more: Record<string, string> = {}): string {
  const q = page.form.query ?? {};
  const params = new URLSearchParams();
  for (const name of ['actor', 'action', 'from', 'until']) {
    const value = textParam(q[name]).trim();
    if (value) params.set(name, value);
  }
  for (const [name, value] of Object.entries(more)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

const json = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value));
const change = (r: AuditRecord) =>
  `${r.before === null ? '' : `<div><b>before</b> <code>${escapeHtml(json(r.before))}</code></div>`}` +
  `${r.after === null ? '' : `<div><b>after</b> <code>${escapeHtml(json(r.after))}</code></div>`}`;

/** `older=<at>.<id>`: the line the next page starts below. */
function cursorOf(page: AdminPageRequest): AuditFilter['before'] {
  const text = textParam(page.form.query?.older);
  const match = /^(\d{1,15})\.([\w-]{1,64})$/.exec(text);
  return match?.[1] && match[2] ? { at: Number(match[1]), id: match[2] } : undefined;
}

async function auditPage(audit: AuditLog, page: AdminPageRequest) {
  backendGrants(page.admin.principal).require('administer');
  const filter = filterOf(page);
  const older = cursorOf(page);
  const lines = await audit.list({ ...filter, ...(older ? { before: older } : {}), limit: SHOWN });
  const q = page.form.query ?? {};
  const input = (name: string, label: string, type = 'text', hint = '') =>
    `<label>${escapeHtml(label)} <input type="${type}" name="${name}" value="${escapeHtml(textParam(q[name]))}"` +
    `${hint ? ` placeholder="${escapeHtml(hint)}"` : ''}></label>`;
  const form =
    '<form method="get" action="/admin/audit" class="card filters" aria-label="Filter the audit log">' +
    `${input('actor', 'Actor', 'text', 'name or id')} ` +
    `${input('action', 'Action', 'text', 'e.g. key. or settings.change')} ` +
    `${input('from', 'From (UTC)', 'datetime-local')} ${input('until', 'Until (UTC)', 'datetime-local')} ` +
    '<button type="submit" class="btn">Show</button></form>';
  const columns = [
    {
      label: 'When',
      cell: (r: AuditRecord) => `<time datetime="${isoTime(r.at)}">${escapeHtml(isoTime(r.at))}</time>`,
    },
    {
      label: 'Actor',
      cell: (r: AuditRecord) => link(`/admin/audit${queryOf(page, { actor: r.actorName })}`, r.actorName),
    },
    { label: 'From', cell: (r: AuditRecord) => escapeHtml(r.address ?? '') },
    { label: 'Action', cell: (r: AuditRecord) => escapeHtml(r.action) },
    { label: 'Target', cell: (r: AuditRecord) => escapeHtml(r.target) },
    { label: 'Change', cell: change },
  ];
  const last = lines.at(-1);
  const next =
    lines.length === SHOWN && last
      ? `<p>${link(`/admin/audit${queryOf(page, { older: `${last.at}.${last.id}` })}`, 'Older →', ' rel="next"')}</p>`
      : '';
  const exports =
    `<p>Export what the filter shows: ${link(`/admin/audit/export${queryOf(page, { format: 'ndjson' })}`, 'NDJSON')}` +
    ` · ${link(`/admin/audit/export${queryOf(page, { format: 'csv' })}`, 'CSV')}</p>`;
  const body =
    '<p class="muted">Every administrator action and every change of permissions, settings, webhooks, keys and ' +
    'accounts: who, when, from where, before and after (secrets redacted). Kept for the retention the settings ' +
    'say.</p>' +
    form +
    exports +
    table('Audit log, newest first', columns, lines, 'Nothing recorded here.') +
    next;
  return { title: 'Audit log', body };
}

const CSV_COLUMNS = ['at', 'actor', 'actorName', 'address', 'action', 'target', 'before', 'after'] as const;

/** The line as exported: the time in ISO 8601. */
const exported = (r: AuditRecord) => ({ ...r, at: isoTime(r.at) });

async function exportPage(audit: AuditLog, page: AdminPageRequest) {
  backendGrants(page.admin.principal).require('administer');
  const format = textParam(page.form.query?.format) || 'ndjson';
  if (format !== 'ndjson' && format !== 'csv')
    throw new RoostError('invalid', 'validation_failure', 'Export as ndjson or csv.', {
      fields: [['format', 'one of ndjson, csv']],
    });
  const filter = filterOf(page);
  const rows: AuditRecord[] = [];
  let before: AuditFilter['before'];
  for (;;) {
    const batch = await audit.list({ ...filter, ...(before ? { before } : {}), limit: EXPORT_PAGE });
    rows.push(...batch);
    const last = batch.at(-1);
    if (batch.length < EXPORT_PAGE || !last || rows.length >= EXPORT_MAX) break;
    before = { at: last.at, id: last.id };
  }
  const csvLine = (r: AuditRecord) => {
    const line = exported(r);
    const cells = CSV_COLUMNS.map((c) => csvField(c === 'before' || c === 'after' ? json(line[c]) : line[c]));
    return `${cells.join(',')}\r\n`;
  };
  const body =
    format === 'ndjson'
      ? rows.map((r) => `${JSON.stringify(exported(r))}\n`).join('')
      : `${CSV_COLUMNS.join(',')}\r\n${rows.map(csvLine).join('')}`;
  return {
    download: {
      filename: `audit-${new Date().toISOString().slice(0, 10)}.${format}`,
      contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      body,
    },
  };
}

export function registerAuditPages(pages: AdminPages, audit: AuditLog): void {
  pages.page('/admin/audit', (page) => auditPage(audit, page), { post: false });
  pages.page('/admin/audit/export', (page) => exportPage(audit, page), { post: false });
}
