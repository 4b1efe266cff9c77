import { PROOF_OF_WORK_ASSETS } from './page-kit/proof-of-work-field.js';
import type { FastifyInstance } from 'fastify';
import { formAssets } from '@roost/forms';
import type { Kysely } from 'kysely';
import type { Config } from '../core/config.js';
import type { Mailer } from '../core/mailer.js';
import type { RuntimeSettingsService } from '../core/runtime-settings.js';
import type { HttpServices } from '../http/http-app.js';
import type { Database } from '../storage/schema.js';
import { installPageBodies } from './page-kit/page-body.js';
import { installPageErrorHandler } from './page-kit/page-errors.js';
import { registerAccountPages } from './pages/account-pages.js';
import { adminPages, type AdminPages } from './pages/admin-routes.js';
import { registerDashboard } from './pages/dashboard-page.js';
import { registerOutboxPages } from './pages/outbox-pages.js';
import { registerPermissionsPages } from './pages/permissions-pages.js';
import { registerSettingsPage } from './pages/settings-page.js';
import { registerSetupPage } from './pages/setup-page.js';
import { registerSigninPages } from './pages/signin-pages.js';
import type { SetupLinks } from './setup-links.js';
import { registerSignupsPages } from './pages/signups-page.js';
import { registerToolsPage } from './pages/tools-page.js';
import { registerWebhookPages } from './pages/webhooks-pages.js';
import { registerJobPages } from './pages/jobs-pages.js';
import { registerKeyPages } from './pages/keys-pages.js';
import { registerAuditPages } from './pages/audit-pages.js';
import { registerImpersonationPage } from './pages/impersonation-pages.js';
import type { KeyService } from '../keys/index.js';
import type { AuditLog } from '../core/audit.js';
import { registerLogPages } from './pages/logs-pages.js';
import { registerBackupPages } from './pages/backups-pages.js';
import type { Backups } from '../backups/index.js';
import type { JobQueue } from '../core/job-queue.js';
import type { JobCatalog } from '../core/jobs.js';
import type { Webhooks } from '../realtime/webhooks.js';
import type { DashboardPart, NavSection, PermissionTarget } from '../core/service-kind.js';
import type { Caller } from '../users/index.js';
import { registerUsersPages } from './pages/users-pages.js';
import { registerUserSecurityPage } from './pages/user-security-page.js';
import { registerStorePages } from './store-pages/index.js';
import { registerCollectionPages } from './collection-pages/index.js';
import type { Collections } from '../collections/index.js';
import { roostCss } from './stylesheet.js';
import { LIST_SCRIPT } from './list-script.js';
import { recordAdminActions } from './admin-actions.js';
import { LIVE_SCRIPT } from './live-script.js';
import { UPLOAD_SCRIPT } from './upload-script.js';
import { METHOD_PAGES } from './signin-methods/index.js';
import { renderPage } from './layout.js';
import { sendHtml } from './page-kit/page-reply.js';
import { registerPublicUserPages } from './user-pages/index.js';

export interface PageDeps {
  services: HttpServices;
  config: Config;
  db: Kysely<Database>;
  /** The runtime settings (settings page) and the mailer that follows them (test mail). */
  settings: RuntimeSettingsService;
  mailer: Mailer;
  /** Where the outbox mailer writes (mail outbox page). */
  outboxDir: string;
  /** The first run's setup link (setup-links.ts, pages/setup-page.ts). */
  setupLinks: SetupLinks;
  /** Webhooks and their delivery log (pages/webhooks-pages.ts). */
  webhooks: Webhooks;
  /** The job queue (pages/jobs-pages.ts). */
  jobs: JobQueue;
  /** The extensions' scheduled and background jobs (extend/jobs.ts), listed on the jobs page. */
  jobCatalog: JobCatalog;
  /** The collections (collection-pages/). */
  collections: Collections;
  /** The API keys (pages/keys-pages.ts). */
  keys: KeyService;
  /** The audit log (pages/audit-pages.ts). */
  audit: AuditLog;
  /** Backups and their restore check (pages/backups-pages.ts). */
  backups: Backups;
  /** What the service kinds (src/service-kinds.ts) bring to the pages: header sections, pages, permission targets. */
  kinds: KindPages;
}

/** The service kinds' part of the pages, from their descriptors (core/service-kind.ts). */
export interface KindPages {
  sections: readonly NavSection[];
  /** Each kind's admin pages, registered among the backend's. */
  pages: ReadonlyArray<(pages: AdminPages) => void>;
  /** Every service with permission entries: the permission pages and the webhooks' service list. */
  services(): ReadonlyArray<PermissionTarget<Caller>>;
  /** The kinds' parts of the dashboard, in the kinds' order, read as `caller`. */
  dashboard(caller: Caller): Promise<DashboardPart[]>;
}

/** Roost's icon: a roof over a perch, in the pages' blue. */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4fa8"/>' +
  '<path d="M6 15 16 7l10 8" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" ' +
  'stroke-linejoin="round"/><path d="M10 23h12" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>';

/** The stylesheet, the icon and the form library's assets, shared by every page. */
export async function registerPageAssets(app: FastifyInstance): Promise<void> {
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    app.get(path, async (_request, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON),
    );
  }
  for (const [name, script] of [
    ['roost-live.js', LIVE_SCRIPT],
    ['roost-lists.js', LIST_SCRIPT],
    ['roost-uploads.js', UPLOAD_SCRIPT],
  ] as const)
    app.get(`/static/${name}`, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(script),
    );
  // The sign-in methods' scripts (admin/signin-methods/): the passkey buttons.
  for (const [name, script] of METHOD_PAGES.flatMap((m) => Object.entries(m.scripts ?? {}))) {
    app.get(`/static/${name}`, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(script),
    );
  }
  // The proof of work's widget (page-kit/proof-of-work-field.ts), read from its package at the first request.
  for (const asset of PROOF_OF_WORK_ASSETS)
    app.get(`/static/${asset.name}`, async (_request, reply) =>
      reply.type(`${asset.type}; charset=utf-8`).header('cache-control', 'public, max-age=300').send(asset.body()),
    );
  app.get('/static/roost.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(roostCss),
  );
  app.get<{ Params: { name: string } }>('/forms-static/:name', async (request, reply) => {
    const asset = formAssets[request.params.name];
    if (!asset) return reply.code(404).send({ error: 'not_found', message: 'No such asset.' });
    return reply.type(asset.contentType).header('cache-control', 'public, max-age=300').send(asset.body);
  });
}

/**
 * `/admin/...`: the management backend (issue 3), and the sign-in pages (`/admin/signin`,
 * `/users/signin`). Like every HTML answer they
 * carry the pages' Content-Security-Policy (http/security-headers.ts): everything they load
 * comes from Roost itself.
 */
async function registerAdminPages(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const { users } = deps.services;
  registerSigninPages(app, { users, config: deps.config });
  registerSetupPage(app, deps);
  const pages = adminPages(app, { users, bodyLimit: deps.config.bodyLimit });
  registerDashboard(pages, deps);
  registerAccountPages(pages, users, deps.config.users);
  registerUsersPages(pages, users);
  registerUserSecurityPage(pages, users);
  registerSignupsPages(pages, users);
  registerPermissionsPages(pages, deps.kinds.services);
  for (const register of deps.kinds.pages) register(pages);
  registerOutboxPages(pages, { outboxDir: deps.outboxDir, settings: deps.settings });
  registerToolsPage(pages, users);
  registerWebhookPages(pages, { webhooks: deps.webhooks });
  registerJobPages(pages, deps.jobs, deps.jobCatalog);
  registerKeyPages(pages, { keys: deps.keys });
  registerAuditPages(pages, deps.audit);
  registerImpersonationPage(pages, users);
  registerLogPages(pages, deps.services.requestRecords ?? null, deps.jobs);
  registerBackupPages(pages, deps.backups, deps.config);
  registerSettingsPage(pages, { users, settings: deps.settings, mailer: deps.mailer, config: deps.config });
  // A mistyped backend address answers a page, not the API's JSON body.
  await app.register(
    async (admin) => {
      admin.setNotFoundHandler((_request, reply) =>
        sendHtml(
          reply,
          renderPage({
            title: 'Not found',
            body:
              '<div class="card narrow"><p>There is no such page in the management backend.</p><p>' +
              '<a class="btn btn-primary" href="/admin">To the dashboard</a></p></div>',
          }),
          404,
        ),
      );
    },
    { prefix: '/admin' },
  );
}

/**
 * Every server-rendered page, in one encapsulated plugin: the pages' body parser (multipart,
 * page-kit/page-body.ts) and their error pages (page-kit/page-errors.ts) are installed once here
 * and serve these routes only; the API keeps its JSON ones. Inside: the management backend, the
 * store pages (`/admin/data`, `/admin/files`), the collection pages (`/admin/collections`) and the
 * public user pages (`/users/...`).
 */
export async function registerPages(app: FastifyInstance, deps: PageDeps): Promise<void> {
  app.decorate('adminSections', deps.kinds.sections);
  installPageErrorHandler(app);
  recordAdminActions(app, deps.audit);
  await installPageBodies(app, deps.config.bodyLimit);
  await app.register(registerAdminPages, deps);
  await app.register(registerStorePages, deps);
  await app.register(registerCollectionPages, deps);
  await app.register(registerPublicUserPages, deps);
}
