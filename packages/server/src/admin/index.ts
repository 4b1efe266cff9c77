import type { FastifyInstance } from 'fastify';
import { formAssets } from '@roost/forms';
import type { Kysely } from 'kysely';
import type { Config } from '../core/config.js';
import type { Mailer } from '../core/mailer.js';
import type { RuntimeSettingsService } from '../core/runtime-settings.js';
import type { Database } from '../storage/schema.js';
import type { HttpServices } from '../http/http-app.js';
import { roostCss } from './stylesheet.js';
import { registerStorePages } from './store-pages/index.js';
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
}

/** The stylesheet and the form library's assets, shared by every page. */
export async function registerPageAssets(app: FastifyInstance): Promise<void> {
  app.get('/static/roost.css', async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(roostCss));
  app.get<{ Params: { name: string } }>('/forms-static/:name', async (request, reply) => {
    const asset = formAssets[request.params.name];
    if (!asset) return reply.code(404).send({ error: 'not_found', message: 'No such asset.' });
    return reply.type(asset.contentType).header('cache-control', 'public, max-age=300').send(asset.body);
  });
}

/** `/admin/...`: the management backend (issue 3). */
export async function registerAdminPages(_app: FastifyInstance, _deps: PageDeps): Promise<void> {}

/** `/admin/data/...` and `/admin/files/...`: browsing the data and file stores (issue 3). */
export async function registerAdminStorePages(app: FastifyInstance, deps: PageDeps): Promise<void> {
  await registerStorePages(app, deps);
}

/** `/users/<page>`: the pages the mails link to, and sign-in and sign-up (issue 3). */
export async function registerUserPages(app: FastifyInstance, deps: PageDeps): Promise<void> {
  await registerPublicUserPages(app, deps);
}
