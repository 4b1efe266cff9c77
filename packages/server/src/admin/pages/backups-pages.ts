import { escapeHtml, formatBytes } from '@roost/forms';
import type { ArchiveView, BackupRun, Backups } from '../../backups/index.js';
import type { Config } from '../../core/config.js';
import { RoostError } from '../../core/errors.js';
import { facts, link, table } from '../page-kit/page-parts.js';
import type { AdminPageRequest, AdminPages } from './admin-routes.js';
import { accountConfirmForm } from './confirm-form.js';
import { isoTime } from '../../core/clock.js';

/**
 * `/admin/backups` (issue 42, item 3; docs/admin.md, "Backups"): the archives in the backup
 * target (backups/backups-service.ts) with their size, time and kind, each downloaded, deleted
 * or shown with what a restore would replace; a backup or a restore check started now, its
 * progress shown while it runs (the page reloads itself every two seconds meanwhile); the last
 * checks. Times are ISO 8601 with their offset (issue 42, item 8).
 *
 * Restore is `roost restore` with the server stopped: a restore replaces every table, which no
 * request of a running server may see half done (docs/operations.md, "Backups" says why). The
 * restore page names what would be replaced and tells the steps.
 */

const RUNS_SHOWN = 10;
const archiveUrl = (name: string, what = '') => `/admin/backups/${encodeURIComponent(name)}${what}`;

/** The tables an operator thinks of first; the rest are listed after them. */
const NAMED_TABLES: ReadonlyArray<readonly [table: string, label: string]> = [
  ['users', 'Users'],
  ['datastore_items', 'Data store items'],
  ['file_entries', 'Files and folders'],
  ['collections', 'Collections'],
];

function recordsOf(tables: Record<string, number>): number {
  return Object.entries(tables)
    .filter(([name]) => name.startsWith('records_'))
    .reduce((n, [, rows]) => n + rows, 0);
}

function progressText(run: BackupRun): string {
  return `${run.rows} rows, ${run.files} files, ${formatBytes(run.bytes)}`;
}

function runState(run: BackupRun): string {
  if (run.state === 'running') return `<span role="status">running: ${escapeHtml(progressText(run))}</span>`;
  if (run.state === 'failed') return `<strong class="error">failed</strong>: ${escapeHtml(run.error ?? '')}`;
  return run.kind === 'check' ? 'passed: every table restored with its rows' : 'done';
}

function startForm(page: AdminPageRequest, backups: Backups, work: 'backup' | 'check') {
  return accountConfirmForm(page, {
    formid: `start-${work}`,
    url: '/admin/backups',
    accountId: work,
    action: {
      id: work,
      name: work === 'backup' ? 'Back up now' : 'Check the newest backup now',
      cssClass: work === 'backup' ? 'btn btn-primary' : 'btn',
    },
    run: async () => {
      await backups.startNow(page.admin.principal, work);
      return undefined;
    },
  });
}

async function listPage(backups: Backups, config: Config, page: AdminPageRequest) {
  const forms = { backup: startForm(page, backups, 'backup'), check: startForm(page, backups, 'check') };
  const processed = { backup: await forms.backup.process(), check: await forms.check.process() };
  for (const work of ['backup', 'check'] as const) {
    const done = processed[work];
    if (done.action.id === work && done.result === true)
      return {
        redirect: '/admin/backups',
        messages: [work === 'backup' ? 'The backup runs now.' : 'The restore check runs now.'],
      };
  }
  const [archives, runs, queued] = await Promise.all([
    backups.archives(page.admin.principal),
    backups.runs(page.admin.principal, RUNS_SHOWN),
    backups.queued(page.admin.principal),
  ]);
  const { schedule, checkSchedule, keep, keepDays } = config.backups;
  const settings = facts([
    ['Target', `<code>${escapeHtml(backups.where)}</code>`],
    ['Schedule (cron, UTC)', schedule ? `<code>${escapeHtml(schedule)}</code>` : 'none: backups are made here only'],
    ['Keep', escapeHtml(`the newest ${keep}${keepDays ? `, none older than ${keepDays} days` : ''}`)],
    ['Restore check (cron, UTC)', checkSchedule ? `<code>${escapeHtml(checkSchedule)}</code>` : 'none'],
  ]);
  const archiveRows = table(
    'Backups',
    [
      { label: 'Made', cell: (a: ArchiveView) => `<time>${escapeHtml(isoTime(a.run?.started ?? a.modified))}</time>` },
      { label: 'Kind', cell: (a: ArchiveView) => escapeHtml(a.kind) },
      { label: 'Size', cell: (a: ArchiveView) => escapeHtml(formatBytes(a.size)), className: 'num' },
      {
        label: 'Rows',
        cell: (a: ArchiveView) => (a.run ? String(Object.values(a.run.tables ?? {}).reduce((n, r) => n + r, 0)) : ''),
        className: 'num',
      },
      {
        label: 'Archive',
        cell: (a: ArchiveView) =>
          `${link(archiveUrl(a.name, '/download'), a.name)}<br>${link(archiveUrl(a.name, '/restore'), 'Restore…')} · ` +
          link(archiveUrl(a.name, '/delete'), 'Delete…'),
      },
    ],
    archives,
    'No backup yet.',
  );
  const runRows = table(
    'Recent runs',
    [
      { label: 'Started', cell: (r: BackupRun) => `<time>${escapeHtml(isoTime(r.started))}</time>` },
      { label: 'What', cell: (r: BackupRun) => escapeHtml(r.kind === 'check' ? 'restore check' : `${r.kind} backup`) },
      { label: 'Archive', cell: (r: BackupRun) => escapeHtml(r.name) },
      { label: 'Outcome', cell: runState },
    ],
    runs,
    'Nothing ran yet.',
  );
  // Asked for and not yet started counts too: a run's row is made once a process claims its job.
  const running = queued > 0 || runs.some((r) => r.state === 'running');
  const waiting = queued > runs.filter((r) => r.state === 'running').length;
  const body =
    `<div class="card">${settings}<p class="muted">Set in the configuration's <code>backups</code> section ` +
    '(docs/configuration.md).</p></div>' +
    `<section class="card"><h2>Back up now</h2>${processed.backup.html}` +
    `<h2>Restore check</h2><p class="muted">Restores the newest backup into a scratch database and compares ` +
    `every table's rows with the backup's own count; nothing of this server is touched.</p>` +
    `${processed.check.html}</section>` +
    `<h2>Recent runs</h2><div id="backup-runs">` +
    (waiting ? '<p role="status">A run waits for a process to start it.</p>' : '') +
    `${runRows}</div><h2>Backups</h2>${archiveRows}`;
  // While a run runs, the page shows its progress by reloading itself (no script: the pages' CSP).
  const head = (await forms.backup.htmlHead()) + (running ? '<meta http-equiv="refresh" content="2">' : '');
  return { title: 'Backups', body, head };
}

async function archiveOf(backups: Backups, page: AdminPageRequest): Promise<ArchiveView> {
  const name = page.params.name ?? '';
  const found = (await backups.archives(page.admin.principal)).find((a) => a.name === name);
  if (!found) throw new RoostError('not_found', 'not_found', 'There is no such backup.');
  return found;
}

async function downloadPage(backups: Backups, page: AdminPageRequest) {
  const archive = await archiveOf(backups, page);
  const body = await backups.download(page.admin.principal, archive.name);
  return { download: { filename: archive.name, contentType: 'application/gzip', body } };
}

async function deletePage(backups: Backups, page: AdminPageRequest) {
  const archive = await archiveOf(backups, page);
  const form = accountConfirmForm(page, {
    formid: 'delete-backup',
    url: archiveUrl(archive.name, '/delete'),
    accountId: archive.name,
    action: { id: 'delete', name: 'Delete this backup', cssClass: 'btn btn-danger' },
    run: async () => {
      await backups.remove(page.admin.principal, archive.name);
      return undefined;
    },
  });
  const done = await form.process();
  if (done.action.id === 'delete' && done.result === true)
    return { redirect: '/admin/backups', messages: [`Deleted ${archive.name}.`] };
  const body =
    `<div class="card"><p>Delete <code>${escapeHtml(archive.name)}</code> (${escapeHtml(formatBytes(archive.size))}, ` +
    `made ${escapeHtml(isoTime(archive.run?.started ?? archive.modified))})? It cannot be brought back.</p>` +
    `${done.html}</div>`;
  return { title: 'Delete a backup', body, head: await form.htmlHead() };
}

async function restorePage(backups: Backups, page: AdminPageRequest) {
  const archive = await archiveOf(backups, page);
  const now = await backups.currentCounts(page.admin.principal);
  const saved = archive.run?.tables ?? null;
  const named = new Set(NAMED_TABLES.map(([t]) => t));
  const rows: Array<{ label: string; now: number; saved: number | null }> = [
    ...NAMED_TABLES.map(([t, label]) => ({ label, now: now[t] ?? 0, saved: saved ? (saved[t] ?? 0) : null })),
    { label: 'Collection records', now: recordsOf(now), saved: saved ? recordsOf(saved) : null },
    ...Object.keys(now)
      .filter((t) => !named.has(t) && !t.startsWith('records_'))
      .map((t) => ({ label: `Table ${t}`, now: now[t] ?? 0, saved: saved ? (saved[t] ?? 0) : null })),
  ];
  const counts = table(
    'What a restore replaces',
    [
      { label: 'What', cell: (r: (typeof rows)[number]) => escapeHtml(r.label) },
      { label: 'Now (replaced)', cell: (r: (typeof rows)[number]) => String(r.now), className: 'num' },
      {
        label: 'In the backup',
        cell: (r: (typeof rows)[number]) => (r.saved === null ? 'unknown' : String(r.saved)),
        className: 'num',
      },
    ],
    rows,
    '',
  );
  const body =
    `<div class="card"><p>A restore of <code>${escapeHtml(archive.name)}</code> replaces everything this server ` +
    'holds now, and every file’s contents, with what the backup holds:</p>' +
    `${counts}</div><section class="card"><h2>How to restore</h2>` +
    '<p>Restores run with the server stopped, never under it: a running server would answer from a database ' +
    'half replaced. <code>roost restore</code> refuses a database that is not empty, and a damaged backup ' +
    'changes nothing.</p><ol>' +
    `<li>${link(archiveUrl(archive.name, '/download'), 'Download the backup')}.</li>` +
    '<li>Stop Roost (every process).</li>' +
    '<li>Keep the present database aside: on SQLite move <code>roost.db</code> out of the data folder; on ' +
    'PostgreSQL make a new, empty database and point <code>ROOST_DATABASE_URL</code> at it.</li>' +
    `<li>Run <code>roost restore ${escapeHtml(archive.name)}</code> (users sign in again; ` +
    '<code>--keep-sessions</code> keeps their sessions).</li>' +
    '<li>Start Roost.</li></ol></section>' +
    `<p>${link('/admin/backups', '← All backups')}</p>`;
  return { title: 'Restore a backup', body };
}

export function registerBackupPages(pages: AdminPages, backups: Backups, config: Config): void {
  pages.page('/admin/backups', (page) => listPage(backups, config, page));
  pages.page('/admin/backups/:name/download', (page) => downloadPage(backups, page), { post: false });
  pages.page('/admin/backups/:name/delete', (page) => deletePage(backups, page));
  pages.page('/admin/backups/:name/restore', (page) => restorePage(backups, page), { post: false });
}
