import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { AdminPages } from '../admin/pages/admin-routes.js';
import { systemClock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import type { NavSection } from '../core/service-kind.js';
import type { RequestCaller } from '../http/auth.js';
import { ANONYMOUS_CALLER, createSecretBox, type UserService } from '../users/index.js';
import type { Database } from '../storage/schema.js';
import { accountReader } from './idp-accounts.js';
import { APPLICATIONS_SECTION, registerApplicationPages } from './idp-admin-page.js';
import { createClientRegistry } from './idp-clients.js';
import { loadIdpKeys } from './idp-keys.js';
import { createIdpProvider } from './idp-provider.js';
import { createIdpRepo } from './idp-repo.js';
import { idpErrorPage, idpLogoutPage, registerIdpRoutes } from './idp-routes.js';

export interface IdentityProviderDeps {
  config: Config;
  users: UserService;
  db: Kysely<Database>;
  log: FastifyBaseLogger;
}

/** What the composition root (roost.ts) mounts: the provider's routes, and its admin page with its header section. */
export interface IdentityProvider {
  routes(app: FastifyInstance): Promise<void>;
  adminPages(pages: AdminPages): void;
  section: NavSection;
}

const ANONYMOUS_REQUEST: RequestCaller = Object.freeze({ ...ANONYMOUS_CALLER, via: null });
const PURGE_EVERY_MS = 3600_000;

/**
 * Roost as an OpenID Connect provider (issue 45, item 5; docs/users.md, "Roost as an identity
 * provider"), on when `identityProvider.enabled`: loads (or makes, once) its keys, builds the
 * provider, its routes and its admin page. The library's clock is the system's (it reads
 * `Date.now()` itself), so its models' expiries are too. Expired models are removed hourly by
 * each process (the delete is the same in all).
 */
export async function openIdentityProvider(deps: IdentityProviderDeps): Promise<IdentityProvider> {
  const { config, users } = deps;
  const clock = systemClock;
  const repo = createIdpRepo(deps.db);
  const box = createSecretBox(config.users.secretsKey);
  const keys = await loadIdpKeys(repo, box, clock);
  const callers = new WeakMap<IncomingMessage, () => Promise<RequestCaller>>();
  const options = config.identityProvider;
  const clients = createClientRegistry({ repo, box, options, clock });
  const provider = createIdpProvider({
    options,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    users,
    repo,
    clients,
    keys,
    clock,
    account: accountReader(users),
    callerOf: (req) => callers.get(req)?.() ?? Promise.resolve(ANONYMOUS_REQUEST),
    errorPage: idpErrorPage,
    logoutPage: idpLogoutPage,
  });
  // The library reports each refused request as an event as well as in its answer.
  provider.on('server_error', (_ctx, err) => deps.log.error({ err }, 'identity provider error'));
  return {
    async routes(app) {
      await registerIdpRoutes(app, { provider, users, repo, clients, clock, callers });
      const purge = () =>
        repo.purgeExpired(clock.now()).catch((err: unknown) => deps.log.warn({ err }, 'idp purge failed'));
      const timer = setInterval(purge, PURGE_EVERY_MS).unref();
      app.addHook('onClose', async () => clearInterval(timer));
    },
    adminPages: (pages) => registerApplicationPages(pages, clients, config.publicUrl),
    section: APPLICATIONS_SECTION,
  };
}
