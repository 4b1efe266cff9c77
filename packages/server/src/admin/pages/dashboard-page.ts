import { escapeHtml, formatBytes } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { ROOST_VERSION } from '../../core/version.js';
import { redactedUrl } from '../../storage/database-errors.js';
import { databaseBytes } from '../../storage/database.js';
import type { User } from '../../users/index.js';
import type { PageDeps } from '../index.js';
import type { AdminPages } from './admin-routes.js';
import { stateBadge } from './users-pages.js';
import { facts, link, table } from '../page-kit/page-parts.js';

const RECENT_SIGNUPS = 5;

/** "3 d 4 h", "2 h 5 min", "40 s": how long the process has run, to the two largest units. */
function formatUptime(seconds: number): string {
  const parts: [number, string][] = [
    [Math.floor(seconds / 86400), 'd'],
    [Math.floor(seconds / 3600) % 24, 'h'],
    [Math.floor(seconds / 60) % 60, 'min'],
    [Math.floor(seconds) % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first === -1) return '0 s';
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n} ${unit}`)
    .join(' ');
}

/**
 * `/admin`: what there is at a glance (accounts, sign-ups waiting, stores) with the way to each,
 * then the server (version, uptime, database, storage use) and the latest sign-ups. Every figure
 * is read when the page loads: one count per store, one size query, so it stays cheap.
 */
export function registerDashboard(pages: AdminPages, deps: PageDeps): void {
  const { services, config, db } = deps;
  pages.page(
    '/admin',
    async ({ admin }) => {
      const [parts, dbBytes, recent] = await Promise.all([
        deps.kinds.dashboard(admin),
        databaseBytes(db),
        services.users.list(admin, { sort: 'created', order: '>', size: RECENT_SIGNUPS }),
      ]);
      const tiles = parts
        .flatMap((part) => part.tiles)
        .map(
          ({ href, value, label }) =>
            `<a class="tile" href="${escapeHtml(href)}"><span class="figure">${value}</span>` +
            `<span>${escapeHtml(label)}</span></a>`,
        );
      const database = config.databaseUrl
        ? `PostgreSQL, ${redactedUrl(config.databaseUrl)}`
        : `SQLite, ${config.dataDir}/roost.db`;
      const server = facts([
        ['Version', escapeHtml(ROOST_VERSION)],
        ['Running for', escapeHtml(`${formatUptime(process.uptime())} (Node ${process.versions.node})`)],
        ['Database', escapeHtml(`${database}: ${formatBytes(dbBytes)}`)],
        ...parts.flatMap((part) => part.facts.map(([label, text]): [string, string] => [label, escapeHtml(text)])),
      ]);

      const columns = [
        { label: 'Name', cell: (u: User) => link(`/admin/users/${encodeURIComponent(u.id)}`, u.name) },
        { label: 'Email', cell: (u: User) => escapeHtml(u.email ?? '') },
        { label: 'State', cell: (u: User) => stateBadge(u.state) },
        { label: 'Signed up (UTC)', cell: (u: User) => escapeHtml(formatTime(u.created)) },
      ];
      const signups = table('Latest sign-ups', columns, recent.users, 'Nobody has signed up yet.');

      const body =
        `<div class="tiles">${tiles.join('')}</div>` +
        `<div class="dashboard"><section class="card"><h2>Server</h2>${server}</section>` +
        `<section class="card"><h2>Latest sign-ups</h2>${signups}<p>${link('/admin/users', 'All accounts')} · ` +
        `${link('/admin/signups', 'Sign-ups waiting')}</p></section></div>`;
      return { title: 'Overview', body };
    },
    { post: false },
  );
}
