import { escapeHtml } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { RoostError } from '../../core/errors.js';
import type { JobQueue } from '../../core/job-queue.js';
import { JOB_STATES, type Job, type JobCatalog, type JobState, type ScheduleView } from '../../core/jobs.js';
import { facts, link, table, textParam } from '../page-kit/page-parts.js';
import type { AdminPageRequest, AdminPages } from './admin-routes.js';
import { accountConfirmForm } from './confirm-form.js';
import { jobUrl, logUrl } from './page-urls.js';

/**
 * `/admin/jobs`: the job queue (core/job-queue.ts; docs/operations.md, "Jobs"): the newest jobs,
 * filtered by kind and state, with their attempts, next run and last error;
 * `/admin/jobs/<id>`: one job, and for a failed one a form that runs it again. The payload is
 * not shown: a mail's holds its links, which are secrets. Above the list, the extensions' jobs
 * (extend/jobs.ts; docs/hooks.md, "Jobs"): the scheduled ones with their cron, next run and last
 * runs, each run now from `/admin/jobs/schedules/<name>`, and the background ones.
 */

const SHOWN = 100;

const when = (ms: number | null) => (ms === null ? '' : escapeHtml(formatTime(ms)));

/** A filter from the query: empty is any; anything not listed is refused. */
function choice<T extends string>(page: AdminPageRequest, name: string, allowed: readonly T[]): T | undefined {
  const value = textParam(page.form.query?.[name]);
  if (value === '') return undefined;
  if (!allowed.includes(value as T))
    throw new RoostError('invalid', 'validation_failure', `There is no ${name} "${value}".`, {
      fields: [[name, 'invalid']],
    });
  return value as T;
}

function select(name: string, options: readonly string[], current: string | undefined): string {
  const items = ['', ...options].map(
    (o) =>
      `<option value="${escapeHtml(o)}"${o === (current ?? '') ? ' selected' : ''}>${escapeHtml(o || 'any')}</option>`,
  );
  const label = escapeHtml(`${name[0]?.toUpperCase()}${name.slice(1)}`);
  return `<label>${label} <select name="${name}">${items.join('')}</select></label>`;
}

const LAST_RUNS = 3;
const scheduleUrl = (name: string) => `/admin/jobs/schedules/${encodeURIComponent(name)}`;

/** The extensions' scheduled jobs, each with its last runs, and their background jobs. */
async function extensionJobs(jobs: JobQueue, catalog: JobCatalog, page: AdminPageRequest): Promise<string> {
  const schedules = catalog.schedules();
  const background = catalog.background();
  if (schedules.length === 0 && background.length === 0) return '';
  const lastRuns = await Promise.all(
    schedules.map((s) => jobs.list(page.admin.principal, { kind: s.kind, limit: LAST_RUNS })),
  );
  const runsOf = new Map(schedules.map((s, i) => [s.name, lastRuns[i] ?? []]));
  const runs = (s: ScheduleView) =>
    (runsOf.get(s.name) ?? [])
      .map((j) => `${link(jobUrl(j.id), formatTime(j.created))} ${escapeHtml(j.state)}`)
      .join('<br>');
  const scheduled = table(
    'Scheduled jobs',
    [
      { label: 'Name', cell: (s: ScheduleView) => link(scheduleUrl(s.name), s.name) },
      { label: 'Cron', cell: (s: ScheduleView) => `<code>${escapeHtml(s.cron)}</code>` },
      { label: 'Time zone', cell: (s: ScheduleView) => escapeHtml(s.timezone) },
      { label: 'Next run (UTC)', cell: (s: ScheduleView) => when(s.nextRun) },
      { label: 'Last runs (UTC)', cell: runs },
    ],
    schedules,
    'No scheduled job.',
  );
  const defined = table(
    'Background jobs',
    [
      { label: 'Name', cell: (b: (typeof background)[number]) => escapeHtml(b.name) },
      { label: 'Kind', cell: (b: (typeof background)[number]) => escapeHtml(b.kind) },
      { label: 'Tries', cell: (b: (typeof background)[number]) => String(b.maxAttempts) },
      { label: 'Time limit (ms)', cell: (b: (typeof background)[number]) => String(b.timeoutMs) },
    ],
    background,
    'No background job.',
  );
  return `<h2>Scheduled jobs</h2>${scheduled}<h2>Background jobs</h2>${defined}<h2>The queue</h2>`;
}

async function schedulePage(catalog: JobCatalog, page: AdminPageRequest) {
  const name = page.params.name ?? '';
  const schedule = catalog.schedules().find((s) => s.name === name);
  if (!schedule) throw new RoostError('not_found', 'not_found', 'There is no such scheduled job.');
  const runNow = accountConfirmForm(page, {
    formid: 'run-schedule',
    url: scheduleUrl(name),
    accountId: name,
    action: { id: 'run', name: 'Run now', cssClass: 'btn btn-primary' },
    run: async () => {
      await catalog.runNow(page.admin.principal, name);
      return undefined;
    },
  });
  const ran = await runNow.process();
  if (ran.action.id === 'run' && ran.result === true)
    return { redirect: `/admin/jobs?kind=${encodeURIComponent(schedule.kind)}`, messages: ['The job runs now.'] };
  const about = facts([
    ['Cron', `<code>${escapeHtml(schedule.cron)}</code>`],
    ['Time zone', escapeHtml(schedule.timezone)],
    ['Next run (UTC)', when(schedule.nextRun)],
    ['Time limit (ms)', String(schedule.timeoutMs)],
  ]);
  const body =
    `<div class="card">${about}</div><section class="card"><h2>Run now</h2>` +
    '<p class="muted">Runs once now, beside its ticks; not while a run of it is still running.</p>' +
    `${ran.html}</section><p>${link('/admin/jobs', '← All jobs')}</p>`;
  return { title: `Scheduled job ${name}`, body, head: await runNow.htmlHead() };
}

async function listPage(jobs: JobQueue, catalog: JobCatalog, page: AdminPageRequest) {
  const kind = choice(page, 'kind', jobs.kinds());
  const state = choice<JobState>(page, 'state', JOB_STATES);
  const [list, counts] = await Promise.all([
    jobs.list(page.admin.principal, { ...(kind ? { kind } : {}), ...(state ? { state } : {}), limit: SHOWN }),
    jobs.counts(page.admin.principal, kind),
  ]);
  const columns = [
    { label: 'Made (UTC)', cell: (j: Job) => link(jobUrl(j.id), formatTime(j.created)) },
    { label: 'Kind', cell: (j: Job) => escapeHtml(j.kind) },
    { label: 'State', cell: (j: Job) => escapeHtml(j.state) },
    { label: 'Attempts', cell: (j: Job) => String(j.attempts) },
    { label: 'Next run (UTC)', cell: (j: Job) => (j.state === 'pending' ? when(j.runAt) : '') },
    { label: 'Last error', cell: (j: Job) => escapeHtml(j.lastError ?? '') },
  ];
  const filter =
    '<form method="get" action="/admin/jobs" class="card filters">' +
    `${select('kind', jobs.kinds(), kind)} ${select('state', JOB_STATES, state)} ` +
    '<button type="submit" class="btn">Show</button></form>';
  const summary = facts([
    ['Due now', String(counts.due)],
    ['Waiting for a retry', String(counts.retrying)],
    ['Failed', String(counts.failed)],
  ]);
  const body =
    '<p class="muted">Work that runs after an answer: mails, webhook deliveries and the extensions\' jobs. A ' +
    "failed try runs again after a growing pause; after its kind's last attempt a job is kept as failed, and can " +
    'be run again here.</p>' +
    (await extensionJobs(jobs, catalog, page)) +
    `<div class="card">${summary}</div>${filter}` +
    table(`The newest ${SHOWN} jobs`, columns, list, 'No job here.');
  return { title: 'Jobs', body };
}

async function jobPage(jobs: JobQueue, page: AdminPageRequest) {
  const id = page.params.id ?? '';
  const [job] = await jobs.list(page.admin.principal, { id, limit: 1 });
  if (!job) throw new RoostError('not_found', 'not_found', 'There is no such job.');
  const retry = accountConfirmForm(page, {
    formid: 'retry-job',
    url: jobUrl(id),
    accountId: id,
    action: { id: 'retry', name: 'Run again', cssClass: 'btn btn-primary' },
    run: async () => ((await jobs.retry(page.admin.principal, id)) ? undefined : 'The job is not failed (any more).'),
  });
  const retried = await retry.process();
  if (retried.action.id === 'retry' && retried.result === true)
    return { redirect: jobUrl(id), messages: ['The job runs again.'] };
  const about = facts([
    ['Kind', escapeHtml(job.kind)],
    ['About', escapeHtml(job.subject ?? '')],
    ['State', escapeHtml(job.state)],
    ['Attempts', String(job.attempts)],
    ['Made (UTC)', when(job.created)],
    ['Next run (UTC)', job.state === 'pending' ? when(job.runAt) : ''],
    ['Last status', job.lastStatus === null ? '' : String(job.lastStatus)],
    ['Last error', escapeHtml(job.lastError ?? '')],
    ['Finished (UTC)', when(job.finishedAt)],
    ['Caused by', job.requestId === null ? '' : link(logUrl(job.requestId), `request ${job.requestId}`)],
  ]);
  const body =
    `<div class="card">${about}</div>` +
    (job.state === 'failed' || retried.action.id === 'retry'
      ? `<section class="card"><h2>Run again</h2>${retried.html}</section>`
      : '') +
    `<p>${link('/admin/jobs', '← All jobs')}</p>`;
  return { title: `Job ${job.kind}`, body, head: await retry.htmlHead() };
}

export function registerJobPages(pages: AdminPages, jobs: JobQueue, catalog: JobCatalog): void {
  pages.page('/admin/jobs', (page) => listPage(jobs, catalog, page), { post: false });
  pages.page('/admin/jobs/schedules/:name', (page) => schedulePage(catalog, page));
  pages.page('/admin/jobs/:id', (page) => jobPage(jobs, page));
}
