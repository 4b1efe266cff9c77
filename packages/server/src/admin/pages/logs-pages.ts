import { escapeHtml } from '@roost/forms';
import { isoTime } from '../../core/clock.js';
import { RoostError } from '../../core/errors.js';
import type { JobQueue } from '../../core/job-queue.js';
import type { Job } from '../../core/jobs.js';
import type { RequestFilter, RequestRecord, RequestRecords } from '../../core/request-records.js';
import { facts, link, table, textParam } from '../page-kit/page-parts.js';
import type { AdminPageRequest, AdminPages } from './admin-routes.js';
import { jobUrl, logUrl, webhookUrl } from './page-urls.js';

/**
 * `/admin/logs`: the recent requests (core/request-records.ts; docs/admin.md, "Logs"), newest
 * first, filtered by status (`404` or a class, `5xx`), route pattern, user id and time (ISO 8601;
 * a time without an offset is UTC); `/admin/logs/<request id>`: one request's whole story, every
 * record of that id (a proxy's id may reach several processes), the webhook deliveries and jobs it
 * caused (by the id they keep, core/jobs.ts `requestId`) and where its log lines are. Times
 * are shown as stored, ISO 8601 in UTC (issue 42, item 8). Without `requestLog.keep` the page says
 * how to turn it on.
 */

const SHOWN = 200;

const invalid = (name: string, message: string) =>
  new RoostError('invalid', 'validation_failure', message, { fields: [[name, 'invalid']] });

/** `404`, or `4xx` for a class. */
function statusFilter(text: string): Pick<RequestFilter, 'status' | 'statusClass'> {
  if (text === '') return {};
  const exact = /^[1-5]\d\d$/.exec(text);
  if (exact) return { status: Number(text) };
  const cls = /^([2-5])xx$/i.exec(text);
  if (cls) return { statusClass: Number(cls[1]) as 2 | 3 | 4 | 5 };
  throw invalid('status', `The status "${text}" is neither a status (404) nor a class (4xx).`);
}

/** An ISO 8601 time (its offset, or UTC without one) as the stored form, UTC with `Z`. */
function timeFilter(name: string, text: string): string | undefined {
  if (text === '') return undefined;
  const withOffset = /(Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`;
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(text) ? Date.parse(withOffset) : Number.NaN;
  if (Number.isNaN(ms)) throw invalid(name, `"${text}" is not a time as 2026-11-29T07:30 (UTC) or with an offset.`);
  return new Date(ms).toISOString();
}

function filterOf(page: AdminPageRequest): { filter: RequestFilter; shown: Record<string, string> } {
  const q = (name: string) => textParam(page.form.query?.[name]).trim();
  const shown = { status: q('status'), route: q('route'), user: q('user'), since: q('since'), until: q('until') };
  const since = timeFilter('since', shown.since);
  const until = timeFilter('until', shown.until);
  return {
    shown,
    filter: {
      ...statusFilter(shown.status),
      ...(shown.route ? { route: shown.route } : {}),
      ...(shown.user ? { userId: shown.user } : {}),
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
      limit: SHOWN,
    },
  };
}

const field = (name: string, label: string, value: string, hint: string) =>
  `<label>${escapeHtml(label)} <input name="${name}" value="${escapeHtml(value)}" placeholder="${escapeHtml(hint)}"` +
  ` size="${Math.max(8, hint.length)}"></label>`;

const columns = [
  { label: 'At (UTC)', cell: (r: RequestRecord) => link(logUrl(r.requestId), r.at) },
  { label: 'Method', cell: (r: RequestRecord) => escapeHtml(r.method) },
  { label: 'Route', cell: (r: RequestRecord) => escapeHtml(r.route ?? '(none)') },
  { label: 'Status', cell: (r: RequestRecord) => String(r.status) },
  { label: 'Code', cell: (r: RequestRecord) => escapeHtml(r.code ?? '') },
  { label: 'ms', cell: (r: RequestRecord) => String(r.ms) },
  {
    label: 'User',
    cell: (r: RequestRecord) => (r.userId ? link(`/admin/users/${encodeURIComponent(r.userId)}`, r.userId) : ''),
  },
  { label: 'Address', cell: (r: RequestRecord) => escapeHtml(r.address ?? '') },
];

const NOT_KEPT =
  '<p class="card">Recent requests are not kept. Set <code>requestLog.keep</code> to <code>true</code> in ' +
  '<code>roost.config.json</code> (and <code>requestLog.retentionHours</code>, 72 by default) and restart; ' +
  'each request is still written to the log (docs/operations.md, "Logs").</p>';

async function listPage(records: RequestRecords | null, page: AdminPageRequest) {
  if (!records) return { title: 'Logs', body: NOT_KEPT };
  const { filter, shown } = filterOf(page);
  const list = await records.list(page.admin.principal, filter);
  const form =
    '<form method="get" action="/admin/logs" class="card filters">' +
    `${field('status', 'Status', shown.status ?? '', '404 or 5xx')} ` +
    `${field('route', 'Route', shown.route ?? '', '/data/api/getItem')} ` +
    `${field('user', 'User id', shown.user ?? '', 'a user id')} ` +
    `${field('since', 'Since', shown.since ?? '', '2026-11-29T07:00')} ` +
    `${field('until', 'Until', shown.until ?? '', '2026-11-29T08:00')} ` +
    '<button type="submit" class="btn">Show</button></form>';
  const body =
    '<p class="muted">The recent requests, newest first, as their log lines say them; times in UTC. ' +
    "A request's page shows its whole story.</p>" +
    form +
    table(`The newest ${SHOWN} requests`, columns, list, 'No request here.');
  return { title: 'Logs', body };
}

/** A job of a request's story: when it was made, what it is, how it went; its page and its webhook's. */
const causedColumns = [
  { label: 'Made (UTC)', cell: (j: Job) => link(jobUrl(j.id), isoTime(j.created)) },
  {
    label: 'Kind',
    // A delivery's subject is its webhook (realtime/webhooks.ts).
    cell: (j: Job) =>
      j.kind === 'webhook' && j.subject !== null ? link(webhookUrl(j.subject), 'webhook delivery') : escapeHtml(j.kind),
  },
  { label: 'State', cell: (j: Job) => escapeHtml(j.state) },
  { label: 'Attempts', cell: (j: Job) => String(j.attempts) },
  { label: 'Last status', cell: (j: Job) => (j.lastStatus === null ? '' : String(j.lastStatus)) },
  { label: 'Last error', cell: (j: Job) => escapeHtml(j.lastError ?? '') },
];

/**
 * One request's whole story: its records (one per process that logged the id), then what it
 * caused, the webhook deliveries and jobs that keep its id (core/jobs.ts `requestId`), each with
 * its page. A request whose record is past the retention still shows what it caused.
 */
async function requestPage(records: RequestRecords | null, jobs: JobQueue, page: AdminPageRequest) {
  const id = page.params.id ?? '';
  const caller = page.admin.principal;
  const [found, caused] = await Promise.all([
    records ? records.list(caller, { requestId: id, limit: SHOWN }) : [],
    jobs.list(caller, { requestId: id, limit: SHOWN }),
  ]);
  if (found.length === 0 && caused.length === 0)
    throw new RoostError('not_found', 'not_found', 'There is no such request (any more).');
  const cards = found
    .map((r) =>
      facts([
        ['At (UTC)', escapeHtml(r.at)],
        ['Request', `<code>${escapeHtml(`${r.method} ${r.url}`)}</code>`],
        ['Route', escapeHtml(r.route ?? '(none)')],
        ['Status', String(r.status)],
        ['Failure code', escapeHtml(r.code ?? '')],
        ['Time (ms)', String(r.ms)],
        ['User', r.userId ? link(`/admin/users/${encodeURIComponent(r.userId)}`, r.userId) : 'anonymous'],
        ['Address', escapeHtml(r.address ?? '(gone)')],
      ]),
    )
    .map((html) => `<div class="card">${html}</div>`)
    .join('');
  const body =
    (cards || '<p class="card">The request itself is no longer kept (requestLog.retentionHours).</p>') +
    table('What it caused: webhook deliveries and jobs', causedColumns, caused, 'Nothing: no webhook, no job.') +
    `<p class="muted">Every log line of this request, and of each run of what it caused, carries ` +
    `<code>"reqId":"${escapeHtml(id)}"</code>; its answer had the header <code>X-Request-Id</code>, and so ` +
    'has each webhook delivery it caused.</p>' +
    `<p>${link('/admin/logs', '← All requests')}</p>`;
  return { title: `Request ${id}`, body };
}

export function registerLogPages(pages: AdminPages, records: RequestRecords | null, jobs: JobQueue): void {
  pages.page('/admin/logs', (page) => listPage(records, page), { post: false });
  pages.page('/admin/logs/:id', (page) => requestPage(records, jobs, page), { post: false });
}
