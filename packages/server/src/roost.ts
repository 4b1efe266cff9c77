import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { systemClock } from './core/clock.js';
import type { Config } from './core/config.js';
import type { EventBus } from './core/events.js';
import type { RuntimeSettingsService } from './core/runtime-settings.js';
import { buildHttp } from './http/http-app.js';
import { registerClientBundle } from './http/client-bundle.js';
import type { Readiness } from './http/routes/health-routes.js';
import { createSetupLinks, type SetupLinks } from './admin/setup-links.js';
import { registerPageAssets, registerPages } from './admin/index.js';
import { outboxDir } from './mail/create-mailer.js';
import type { MailQueue } from './mail/mail-queue.js';
import type { BlobStores } from './storage/blob-stores.js';
import type { Dialect } from './storage/database.js';
import { appliedMigrations, migrations } from './storage/migrations/index.js';
import type { Database } from './storage/schema.js';
import { openServices, type RoostOverrides, type Services } from './services.js';
import type { Webhooks } from './realtime/webhooks.js';
import type { RealtimeHub } from './realtime/hub.js';

// The package's entry (@roost/server): Roost with its HTTP app, and the services without it,
// with the types of their operations (docs/embedding.md).
export { openServices, type RoostOverrides, type Services } from './services.js';
export { parseConfig, type Config, type ConfigInput } from './core/config.js';
export { isRoostError, RoostError } from './core/errors.js';
export { ANONYMOUS, type Principal } from './core/permissions.js';
export type {
  AccountEvent,
  ChangeEvent,
  EventBus,
  EventListener,
  FileEvent,
  ItemEvent,
  Told,
} from './core/events.js';
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
import type { UserService } from './users/index.js';
import type { DataStores } from './datastore/index.js';
import type { FileStores } from './filestore/index.js';

export interface Roost {
  config: Config;
  /** Roost's log: JSON lines on standard output, at `logLevel`. */
  log: FastifyBaseLogger;
  /** Settings an administrator changes while Roost runs (stored over the boot configuration). */
  settings: RuntimeSettingsService;
  http: FastifyInstance;
  db: Kysely<Database>;
  dialect: Dialect;
  users: UserService;
  dataStores: DataStores;
  fileStores: FileStores;
  /** The blob store of each file store. */
  blobs: BlobStores;
  /** Every committed change of the three services, of this process and of the others (core/events.ts). */
  events: EventBus;
  /** Where outbox mails are written when no SMTP server is configured. */
  outboxDir: string;
  /** Mails waiting for delivery (mail/mail-queue.ts); every mail of the services goes through it. */
  mailQueue: MailQueue;
  /** The first run's setup link: `serve` issues one while no administrator exists (admin/setup-links.ts). */
  setupLinks: SetupLinks;
  /** Webhooks: what administrators configured, and the worker that delivers (realtime/webhooks.ts). */
  webhooks: Webhooks;
  /** The live changes hub the stream routes serve (null: `realtime.enabled` is off). */
  hub: RealtimeHub | null;
  /** Listen on the configured host and port (or the given ones); resolves to the base URL. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
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
    readiness: readinessOf(services),
    mailQueueCounts: () => services.mailQueue.counts(),
  };
  const http = await buildHttp(httpServices, config, services.log);
  const webhooks = services.webhooks;
  // The pages sit on top of the HTTP app (the http layer never imports them).
  const setupLinks = createSetupLinks(overrides.clock ?? systemClock);
  const pageDeps = {
    services: httpServices,
    config,
    db: services.db,
    settings: services.settings,
    mailer: services.mailer,
    outboxDir: outboxDir(config),
    setupLinks,
    webhooks,
  };
  await http.register(registerPageAssets);
  await http.register(registerClientBundle);
  await http.register(registerPages, pageDeps);
  services.start();
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
    async close() {
      // Idle connections are closed at once, running requests after shutdownGraceSeconds
      // (http/shutdown.ts).
      await http.close();
      await services.close();
    },
  };
}

/** What `/ready` checks (http/routes/health-routes.ts): the database, its migrations, the blob stores. */
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
        const applied = await appliedMigrations(services.db as Kysely<unknown>);
        if (applied.length < Object.keys(migrations).length)
          problems.push('database migrations are not all applied (run roost migrate)');
      } catch (err) {
        problems.push(problem('the database cannot be reached', err));
      }
      const checks = await Promise.allSettled(services.blobs.all().map((blobs) => blobs.check()));
      for (const check of checks)
        if (check.status === 'rejected') problems.push(problem('a blob store cannot be reached', check.reason));
      return [...new Set(problems)];
    },
  };
}
