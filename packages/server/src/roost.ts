import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { systemClock } from './core/clock.js';
import type { Config } from './core/config.js';
import { buildHttp } from './http/http-app.js';
import { createDrain } from './http/shutdown.js';
import { registerClientBundle } from './http/client-bundle.js';
import type { Readiness } from './http/routes/health-routes.js';
import { createSetupLinks, type SetupLinks } from './admin/setup-links.js';
import { registerPageAssets, registerPages, type PageDeps } from './admin/index.js';
import type { AdminPages } from './admin/pages/admin-routes.js';
import { outboxDir } from './mail/create-mailer.js';
import { appliedMigrations } from './storage/migrations/index.js';
import { openServices, type RoostOverrides, type Services } from './services.js';
import { loadExtensions, runExtensions } from './extend/load.js';
import { programCaller } from './users/index.js';
import type { ExtensionApi, RoostExtension } from './extend/extension.js';
import { createExtensionRoutes } from './extend/routes.js';
import type { IdentityProvider } from './identity-provider/index.js';
import { scimRoutes, SCIM_PATH } from './scim/index.js';

// The package's entry (@roost/server): Roost with its HTTP app, and the services without it,
// with the types of their operations (docs/embedding.md).
export { openServices, type RoostOverrides, type Services } from './services.js';
export { defineConfig, parseConfig, type Config, type ConfigInput } from './core/config.js';
export { isRoostError, RoostError } from './core/errors.js';
export { defineExtension, type ExtensionApi, type RoostExtension } from './extend/extension.js';
export type {
  ExtensionRoutes,
  RouteAuth,
  RouteCaller,
  RouteContext,
  RouteHandler,
  RouteOptions,
} from './extend/routes.js';
export type { JsonSchema, RouteSchema, StandardSchema } from './extend/route-input.js';
export type { BoundTo, ServicesAs } from './extend/services-as.js';
export type {
  AfterContext,
  AfterHookPoint,
  AfterHookPoints,
  BeforeContext,
  HookPoint,
  HookPoints,
  HookRunner,
} from './core/hooks.js';
export type { AfterHook, BeforeHook, ExtensionHooks, HookFilter, HookOptions } from './extend/hooks.js';
export { refuse } from './extend/refuse.js';
// The jobs part of the extension API (docs/hooks.md, "Jobs"); `EnqueueJob` for hooks and routes that enqueue.
export type {
  DefineOptions,
  EnqueueJob,
  EnqueueOptions,
  ExtensionJobs,
  JobContext,
  JobHandle,
  JobServices,
  JsonValue,
  ScheduleContext,
  ScheduleOptions,
} from './extend/jobs.js';
export { ANONYMOUS, type Principal } from './core/permissions.js';
export {
  kindIn,
  type ChangeEvent,
  type EventBus,
  type EventKind,
  type EventListener,
  type RoostEvents,
  type Told,
  type ToldOf,
} from './core/events.js';
export { ITEM_EVENTS, type ItemEvent } from './datastore/index.js';
export { FILE_EVENTS, type FileEvent } from './filestore/index.js';
export { ACCOUNT_EVENTS, type AccountEvent } from './users/index.js';
export {
  defineCollection,
  RECORD_EVENTS,
  type CollectionDeclaration,
  type CollectionInfo,
  type Collections,
  type RecordEvent,
  type RecordPage,
  type RecordView,
  type Rules,
} from './collections/index.js';
export {
  ANONYMOUS_CALLER,
  programCaller,
  SIGNUP_POLICIES,
  type Caller,
  type Credentials,
  type NewAccount,
  type SignupInput,
  type SignupPolicy,
  type User,
  type UserChange,
  type UserPage,
  type UserQuery,
  type UserValues,
} from './users/index.js';
export type { PermissionEntry } from './core/permission-ops.js';
export type { RealtimeHub, StreamCaller } from './realtime/hub.js';
export type { StreamSink } from './realtime/stream.js';
export type { Webhooks } from './realtime/webhooks.js';
export type { Delivery, Webhook } from './core/webhooks.js';
export type {
  DataStore,
  Item,
  ItemAddress,
  ItemPage,
  ItemRef,
  ItemWrite,
  ItemWrites,
  KeyPage,
  KeysQuery,
  ListQuery,
  OwnerChange,
  WrittenItem,
} from './datastore/index.js';
export type {
  ContentsInput,
  EntryChange,
  EntryMeta,
  EntryPage,
  EntryQuery,
  FileContents,
  FileEntry,
  FilePath,
  FileStore,
  MoveInput,
  NewEntryInput,
  OwnerInput,
  RemoveInput,
  Upload,
} from './filestore/index.js';
export { parsePath, ROOT } from './filestore/index.js';

/** The services (services.ts) with the HTTP app and the pages on them. */
export interface Roost extends Services {
  http: FastifyInstance;
  /** Where outbox mails are written when no SMTP server is configured. */
  outboxDir: string;
  /** The first run's setup link: `serve` issues one while no administrator exists (admin/setup-links.ts). */
  setupLinks: SetupLinks;
  /** Listen on the configured host and port (or the given ones); resolves to the base URL. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /**
   * A stop behind a load balancer (`roost serve`'s SIGTERM): `/ready` answers 503 at once, every
   * request is still served for `drainMs` (`shutdownDrainSeconds` unless given), then `close`.
   */
  stop(drainMs?: number): Promise<void>;
}

/**
 * The composition root: opens storage, migrates it, builds every service and the HTTP app.
 * `serve`, the tests and the benchmarks all start Roost through here.
 */
export async function createRoost(config: Config, overrides: RoostOverrides = {}): Promise<Roost> {
  const services = await openServices(config, overrides);
  const httpServices = {
    users: services.users,
    events: services.events,
    dataStores: services.dataStores,
    fileStores: services.fileStores,
    hub: services.hub,
    requestRecords: services.requestRecords,
    // Each kind's operations, registered by the HTTP app in the kinds' order (service-kinds.ts).
    docPaths: () => Object.assign({}, ...services.kinds.map((kind) => kind.docPaths?.(services) ?? {})),
    routes: services.kinds.flatMap((kind) =>
      kind.routes ? [(app: FastifyInstance) => kind.routes!(app, services)] : [],
    ),
    readiness: readinessOf(services),
    drain: createDrain(),
    // /metrics is Roost's own reading (http/metrics.ts guards the route), as a program that administers.
    mailQueueCounts: () => services.mailQueue.counts(programCaller('metrics').principal),
    hookStats: () => services.hooks.stats(),
    keys: services.keys,
    backupHealth: () => services.backups.health(),
    readers: services.readers,
  };
  const http = await buildHttp(httpServices, config, services.log);
  // Roost as an OpenID Connect provider (identity-provider/), loaded only when it is on.
  let identityProvider: IdentityProvider | null = null;
  try {
    if (config.identityProvider.enabled) {
      const { openIdentityProvider } = await import('./identity-provider/index.js');
      identityProvider = await openIdentityProvider({
        config,
        users: services.users,
        db: services.db,
        log: services.log,
      });
    }
  } catch (err) {
    await http.close();
    await services.close();
    throw err;
  }
  const webhooks = services.webhooks;
  // The pages sit on top of the HTTP app (the http layer never imports them).
  const setupLinks = createSetupLinks(overrides.clock ?? systemClock);
  const pageDeps: PageDeps = {
    services: httpServices,
    config,
    db: services.db,
    settings: services.settings,
    mailer: services.mailer,
    outboxDir: outboxDir(config),
    setupLinks,
    webhooks,
    jobs: services.jobs,
    jobCatalog: services.jobCatalog,
    collections: services.collections,
    keys: services.keys,
    audit: services.audit,
    backups: services.backups,
    // What the service kinds bring to the pages (service-kinds.ts, core/service-kind.ts).
    kinds: {
      sections: [
        ...services.kinds.flatMap((kind) => kind.nav),
        ...(identityProvider ? [identityProvider.section] : []),
      ],
      pages: [
        ...services.kinds.flatMap((kind) => (kind.pages ? [(pages: AdminPages) => kind.pages!(pages, services)] : [])),
        ...(identityProvider ? [identityProvider.adminPages] : []),
      ],
      services: () => services.kinds.flatMap((kind) => kind.services(services)),
      dashboard: (caller) =>
        Promise.all(services.kinds.flatMap((kind) => (kind.dashboard ? [kind.dashboard(services, caller)] : []))),
    },
  };
  try {
    await startExtensions(config, services, http, overrides.extensions ?? []);
  } catch (err) {
    await http.close();
    await services.close();
    throw err;
  }
  await http.register(registerPageAssets);
  await http.register(registerClientBundle);
  await http.register(registerPages, pageDeps);
  if (identityProvider) await http.register(identityProvider.routes);
  // SCIM 2.0 provisioning (scim/): answered to an API key of the scope scim:*, SCIM's bodies throughout.
  await http.register(scimRoutes, {
    prefix: SCIM_PATH,
    users: services.users,
    db: services.db,
    clock: overrides.clock ?? systemClock,
    publicUrl: config.publicUrl,
  });
  services.start();
  const close = async () => {
    // Idle connections are closed at once, running requests after shutdownGraceSeconds
    // (http/shutdown.ts).
    await http.close();
    await services.close();
  };
  return {
    ...services,
    config,
    http,
    webhooks,
    outboxDir: outboxDir(config),
    setupLinks,
    async listen(options = {}) {
      return http.listen({ port: options.port ?? config.port, host: options.host ?? config.host });
    },
    close,
    async stop(drainMs = config.shutdownDrainSeconds * 1000) {
      httpServices.drain.start();
      if (drainMs > 0) {
        services.log.info({ drainSeconds: drainMs / 1000 }, 'Roost is stopping: /ready answers 503, still serving');
        await new Promise((resolve) => setTimeout(resolve, drainMs));
      }
      await close();
    },
  };
}

/**
 * The extensions (docs/hooks.md), run before anything listens or works: those of `hooks/`, of
 * `extend` and the program's (extend/load.ts), each with its API (extend/extension.ts): its
 * hooks named after its source, the routes it declares registered on the HTTP app after them.
 */
async function startExtensions(
  config: Config,
  services: Services,
  http: FastifyInstance,
  program: readonly RoostExtension[],
): Promise<void> {
  const jobs = services.extensionJobs;
  const routes = createExtensionRoutes({
    users: services.users,
    dataStores: services.dataStores,
    fileStores: services.fileStores,
    collections: services.collections,
    mail: services.mailQueue,
    corsOrigins: services.config.corsOrigins,
    jobs,
  });
  const extensions = await loadExtensions(config, {
    cwd: process.cwd(),
    program,
    typecheck: config.hooks.typecheck,
    warn: (message) => services.log.warn(message),
  });
  await runExtensions(
    extensions,
    (source): ExtensionApi => ({ hooks: services.hooks.api(source), routes: routes.api, jobs }),
  );
  routes.register(http);
}

/** What `/ready` checks (http/routes/health-routes.ts): the database, its migrations, each kind's `ready`. */
function readinessOf(services: Services): Readiness {
  const problem = (what: string, err: unknown) => {
    services.log.warn({ err }, `not ready: ${what}`);
    return what;
  };
  return {
    async problems() {
      const problems: string[] = [];
      try {
        await sql`select 1`.execute(services.db);
        const applied = await appliedMigrations(services.db as Kysely<unknown>, services.migrations);
        if (applied.length < Object.keys(services.migrations).length)
          problems.push('database migrations are not all applied (run roost migrate)');
      } catch (err) {
        problems.push(problem('the database cannot be reached', err));
      }
      for (const kind of services.kinds) if (kind.ready) problems.push(...(await kind.ready(services)));
      return [...new Set(problems)];
    },
  };
}
