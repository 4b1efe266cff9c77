import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { sql, type Kysely } from 'kysely';
import { systemClock, type Clock } from './core/clock.js';
import type { Config } from './core/config.js';
import type { Mailer } from './core/mailer.js';
import { buildHttp } from './http/http-app.js';
import { registerClientBundle } from './http/client-bundle.js';
import { createSetupLinks, type SetupLinks } from './admin/setup-links.js';
import { registerAdminPages, registerAdminStorePages, registerPageAssets, registerUserPages } from './admin/index.js';
import { createMailer, outboxDir } from './mail/create-mailer.js';
import { createMailQueue, type MailQueue } from './mail/mail-queue.js';
import { createMailQueueStore } from './storage/mail-queue-store.js';
import { openBlobStores, type BlobStores } from './storage/blob-stores.js';
import { openPostgresChangeFeed } from './storage/change-feed.js';
import type { Dialect } from './storage/database.js';
import { connectDatabase } from './storage/database-errors.js';
import { appliedMigrations, migrateToLatest, migrations } from './storage/migrations/index.js';
import type { Readiness } from './http/routes/health-routes.js';
import { createPermissionStore } from './storage/permission-store.js';
import { createSettingsStore } from './storage/settings-store.js';
import { createRuntimeSettings, type RuntimeSettingsService } from './core/runtime-settings.js';
import type { Database } from './storage/schema.js';
import { createUserService, type UserService } from './users/index.js';
import { createDataStores, type DataStores } from './datastore/index.js';
import { createFileStores, type FileStores } from './filestore/index.js';

export interface RoostOverrides {
  clock?: Clock;
  /** The transport the mail queue delivers through (default: SMTP or the outbox, by the settings). */
  mailer?: Mailer;
}

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
  /** Where outbox mails are written when no SMTP server is configured. */
  outboxDir: string;
  /** Mails waiting for delivery (mail/mail-queue.ts); every mail of the services goes through it. */
  mailQueue: MailQueue;
  /** The first run's setup link: `serve` issues one while no administrator exists (admin/setup-links.ts). */
  setupLinks: SetupLinks;
  /** Listen on the configured host and port (or the given ones); resolves to the base URL. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

export interface Services {
  log: FastifyBaseLogger;
  db: Kysely<Database>;
  dialect: Dialect;
  /** Settings an administrator changes while Roost runs (stored over the boot configuration). */
  settings: RuntimeSettingsService;
  /** The mail transport, following the runtime settings: the queue delivers through it; the settings page's test mail uses it directly. */
  mailer: Mailer;
  mailQueue: MailQueue;
  users: UserService;
  dataStores: DataStores;
  fileStores: FileStores;
  blobs: BlobStores;
  close(): Promise<void>;
}

/** Storage, migrated, and the domain services on it: what the CLI needs, without HTTP. */
export async function openServices(config: Config, overrides: RoostOverrides = {}): Promise<Services> {
  const log = pino({ level: config.logLevel });
  const { db, dialect } = await connectDatabase(config);
  try {
    await migrateToLatest(db as Kysely<unknown>);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const clock = overrides.clock ?? systemClock;
  // Processes sharing a PostgreSQL database tell each other what to forget (storage/change-feed.ts).
  const changes = config.databaseUrl ? await openPostgresChangeFeed(config.databaseUrl, db, (err) => log.error({ err }, 'change feed between processes')) : null;
  const settings = createRuntimeSettings(config, createSettingsStore(db, clock));
  const mailer = overrides.mailer ?? createMailer(config, settings);
  const mailQueue = createMailQueue(createMailQueueStore(db), mailer, clock, (err, item) => {
    if (item) log.warn({ err, kind: item.mail.kind, attempts: item.attempts + 1 }, 'a mail could not be delivered; it is tried again later');
    else log.error({ err }, 'mail work after an answer failed');
  });
  const permissionStore = createPermissionStore(db, clock, 1000, changes);
  const users = createUserService({ db, clock, mailer: mailQueue, permissionStore, runtimeSettings: settings, config, changes });
  const dataStores = createDataStores({ db, dialect, clock, permissionStore, config });
  const blobs = openBlobStores(config);
  const fileStores = createFileStores({ db, clock, permissionStore, config, blobs });
  // Expired sessions and single-use tokens are dead rows; clear them once an hour. A failed
  // purge changes nothing and is tried again the next hour.
  const purge = setInterval(() => void users.purgeExpired().catch(() => {}), 3600_000).unref();
  return {
    log,
    db,
    dialect,
    settings,
    mailer,
    mailQueue,
    users,
    dataStores,
    fileStores,
    blobs,
    async close() {
      clearInterval(purge);
      blobs.close();
      await changes?.close();
      await mailQueue.close();
      await db.destroy();
    },
  };
}

/**
 * The composition root: opens storage, migrates it, builds every service and the HTTP app.
 * `serve`, the tests and the benchmarks all start Roost through here.
 */
export async function createRoost(config: Config, overrides: RoostOverrides = {}): Promise<Roost> {
  const services = await openServices(config, overrides);
  const httpServices = { users: services.users, dataStores: services.dataStores, fileStores: services.fileStores, readiness: readinessOf(services), mailQueueCounts: () => services.mailQueue.counts() };
  const http = await buildHttp(httpServices, config, services.log);
  // The pages sit on top of the HTTP app (the http layer never imports them).
  const setupLinks = createSetupLinks(overrides.clock ?? systemClock);
  const pageDeps = { services: httpServices, config, db: services.db, settings: services.settings, mailer: services.mailer, outboxDir: outboxDir(config), setupLinks };
  await http.register(registerPageAssets);
  await http.register(registerClientBundle);
  await http.register(registerAdminPages, pageDeps);
  await http.register(registerAdminStorePages, pageDeps);
  await http.register(registerUserPages, pageDeps);
  services.mailQueue.start();
  return {
    ...services,
    config,
    http,
    outboxDir: outboxDir(config),
    setupLinks,
    async listen(options = {}) {
      return http.listen({ port: options.port ?? config.port, host: options.host ?? config.host });
    },
    async close() {
      // Fastify closes the idle keep-alive connections once, when the stop begins; one whose
      // answer ends later would hold the stop for the keep-alive timeout (72 s). Sweep until done.
      const sweep = setInterval(() => http.server.closeIdleConnections(), 100);
      try {
        await http.close();
      } finally {
        clearInterval(sweep);
      }
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
        if (applied.length < Object.keys(migrations).length) problems.push('database migrations are not all applied (run roost migrate)');
      } catch (err) {
        problems.push(problem('the database cannot be reached', err));
      }
      const checks = await Promise.allSettled(services.blobs.all().map((blobs) => blobs.check()));
      for (const check of checks) if (check.status === 'rejected') problems.push(problem('a blob store cannot be reached', check.reason));
      return [...new Set(problems)];
    },
  };
}

