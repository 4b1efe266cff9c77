import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Kysely, Migration } from 'kysely';
import { systemClock, type Clock } from './core/clock.js';
import type { Config } from './core/config.js';
import { createEventBus, type EventBus } from './core/events.js';
import type { Mailer } from './core/mailer.js';
import { createRuntimeSettings, type RuntimeSettingsService } from './core/runtime-settings.js';
import { createMailer } from './mail/create-mailer.js';
import { createJobQueue, logJobRun, type JobQueue } from './core/job-queue.js';
import { mailDelivery } from './mail/mail-job.js';
import { createMailQueue, type MailQueue } from './mail/mail-queue.js';
import { openSms, type SmsOverrides } from './sms/sms-parts.js';
import { webhookDelivery } from './realtime/webhook-delivery.js';
import { openBlobStores, type BlobStores } from './storage/blob-stores.js';
import { openStoresPartialUploads } from './storage/partial-uploads.js';
import { openPostgresChangeFeed } from './storage/change-feed.js';
import { openRedisFeed, withInvalidations } from './storage/redis-events.js';
import { withDirectDatabase, type Dialect } from './storage/database.js';
import { connectDatabase } from './storage/database-errors.js';
import { postgresUrls } from './storage/pg-connections.js';
import { createJobStore } from './storage/job-store.js';
import { createRequestLogStore } from './storage/request-log-store.js';
import type { RequestRecords } from './core/request-records.js';
import { migrateToLatest, migrations } from './storage/migrations/index.js';
import { SERVICE_KINDS, type RoostServiceKind } from './service-kinds.js';
import type { PermissionStore } from './core/permissions.js';
import { createPermissionStore } from './storage/permission-store.js';
import type { Database } from './storage/schema.js';
import type { RoostExtension } from './extend/extension.js';
import { createSettingsStore } from './storage/settings-store.js';
import { createWebhookStore } from './storage/webhook-store.js';
import { createUserService, programCaller, type UserService } from './users/index.js';
import { createDataStores, type DataStores } from './datastore/index.js';
import { createFileStores, type FileStores } from './filestore/index.js';
import { createCollections, type Collections } from './collections/index.js';
import { createRealtimeHub, type RealtimeHub } from './realtime/hub.js';
import { realtimeSettings } from './realtime/realtime-settings.js';
import { createWebhooks, type Webhooks } from './realtime/webhooks.js';
import { createHookRegistry, type HookRegistry } from './extend/hooks.js';
import type { ServicesAsDeps } from './extend/services-as.js';
import type { JobCatalog } from './core/jobs.js';
import { createExtensionJobs, type ExtensionJobs } from './extend/jobs.js';
import type { AuditLog } from './core/audit.js';
import { createAuditLog } from './storage/audit-store.js';
import { createKeyRepo, createKeyService, type KeyService } from './keys/index.js';
import { createBackups, type Backups } from './backups/index.js';
import { BACKUP_JOB, CHECK_JOB, scheduleBackups, scheduleUpkeep } from './upkeep-jobs.js';
import { createBackupRunStore } from './storage/backup-run-store.js';
import { openBackupTarget } from './storage/backup-target.js';
import { openReplicaReads, type ReplicaReads } from './storage/replica-reads.js';

/**
 * Storage and the domain services on it, without HTTP: what the CLI opens (cli/cli.ts), and what
 * roost.ts builds the server on. Kept apart from roost.ts so a CLI command loads no web server.
 */

export interface RoostOverrides extends SmsOverrides {
  clock?: Clock;
  /** The transport the mail queue delivers through (default: SMTP or the outbox, by the settings). */
  mailer?: Mailer;
  /** Service kinds besides the built-in ones (service-kinds.ts), each from its descriptor alone. */
  kinds?: readonly RoostServiceKind[];
  /** Where Roost logs (default: pino at `logLevel`, to standard output): an embedding program's own logger. */
  log?: FastifyBaseLogger;
  /**
   * The program's own extensions (docs/hooks.md), run by `createRoost` (roost.ts) after those of
   * `hooks/` and the configuration; `openServices` alone runs none.
   */
  extensions?: readonly RoostExtension[];
}

/** The services a service kind's descriptor is handed (service-kinds.ts): all but what is made from the kinds. */
export interface KindContext {
  config: Config;
  log: FastifyBaseLogger;
  /** The service kinds, built-in first (service-kinds.ts): what the HTTP app, the pages and `/ready` loop over. */
  kinds: readonly RoostServiceKind[];
  /** Every migration: storage/migrations/index.ts and the kinds' own. */
  migrations: Readonly<Record<string, Migration>>;
  /** The permission entries of every service (a kind's services keep theirs under their name). */
  permissionStore: PermissionStore;
  db: Kysely<Database>;
  dialect: Dialect;
  /** Settings an administrator changes while Roost runs (stored over the boot configuration). */
  settings: RuntimeSettingsService;
  /**
   * The mail transport, following the runtime settings: the queue
   * delivers through it; the settings page's test mail uses it directly.
   */
  mailer: Mailer;
  mailQueue: MailQueue;
  /** All work after an answer: mails, webhook deliveries (core/job-queue.ts); `roost serve` starts it. */
  jobs: JobQueue;
  users: UserService;
  dataStores: DataStores;
  fileStores: FileStores;
  /** Records with typed fields, one JSON Schema per collection (collections/). */
  collections: Collections;
  blobs: BlobStores;
  /** Every committed change of the services, of this process and of the others (core/events.ts). */
  events: EventBus;
  /** The team's hooks (extend/hooks.ts): empty until the extensions are loaded (extend/load.ts). */
  hooks: HookRegistry;
  /** The API keys (keys/; docs/operations.md "API keys"). */
  keys: KeyService;
  /** Every administrator action and change of permissions, settings, webhooks, keys and accounts (core/audit.ts). */
  audit: AuditLog;
}

export interface Services extends KindContext {
  /**
   * Webhooks: what administrators configured, and the worker that delivers (realtime/webhooks.ts).
   * Deliveries are made from every change of this process; they are sent once `start` ran here
   * or in another process sharing the database.
   */
  webhooks: Webhooks;
  /**
   * The live changes hub (realtime/hub.ts), null with `realtime.enabled` off: `serve` hands it to
   * its stream routes (http/routes/realtime-routes.ts), an embedding program opens streams on it
   * (docs/embedding.md).
   */
  hub: RealtimeHub | null;
  /** The extensions' scheduled and background jobs (extend/jobs.ts), for the admin jobs page. */
  jobCatalog: JobCatalog;
  /** The jobs part of the extension API (extend/jobs.ts): what `createRoost` hands each extension. */
  extensionJobs: ExtensionJobs;
  /** The recent requests for the admin logs page, with `requestLog.keep` (storage/request-log-store.ts); else null. */
  requestRecords: RequestRecords | null;
  /** Backups, their schedule and restore check (backups/backups-service.ts; docs/operations.md, "Backups"). */
  backups: Backups;
  /** Whose reads a request's are, for read replicas (core/readers.ts). */
  readers: ReplicaReads['readers'];
  /** Starts the work after an answer: the job queue (mails, webhook deliveries) and the webhooks' list. */
  start(): void;
  close(): Promise<void>;
}

/** Storage, migrated, and the domain services on it: what the CLI needs, without HTTP. */
export async function openServices(config: Config, overrides: RoostOverrides = {}): Promise<Services> {
  // Times as ISO 8601 in UTC (`Z`), as everywhere new (issue 42, item 8; docs/operations.md, "Logs").
  const log = overrides.log ?? pino({ level: config.logLevel, timestamp: pino.stdTimeFunctions.isoTime });
  const { db, dialect } = await connectDatabase(config);
  const kinds = [...SERVICE_KINDS, ...(overrides.kinds ?? [])];
  const allMigrations = Object.assign({}, migrations, ...kinds.map((kind) => kind.migrations));
  try {
    // On the direct URL: Kysely's migrator holds a session advisory lock, which a transaction pooler
    // would leave on whichever server connection took it (docs/scaling.md, "Behind PgBouncer").
    await withDirectDatabase(db, config, (direct) => migrateToLatest(direct as Kysely<unknown>, allMigrations));
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const clock = overrides.clock ?? systemClock;
  // Processes sharing a PostgreSQL database tell each other what to forget (storage/change-feed.ts).
  // LISTEN holds its connection for good: on the direct URL (storage/pg-connections.ts).
  const urls = postgresUrls(config);
  const notify = urls
    ? await openPostgresChangeFeed(urls.direct, db, (err) => log.error({ err }, 'change feed between processes'))
    : null;
  // Events between processes: over Redis where configured, else over the change feed. What
  // caches forget travels with them (core/events.ts `feed`): one channel, one message for what
  // a write tells, its invalidations ahead of its event. With Redis, NOTIFY carries every
  // invalidation as well (storage/redis-events.ts `withInvalidations`).
  const redis = config.realtime.redisUrl
    ? await openRedisFeed(config.realtime.redisUrl, (err) =>
        log.warn({ err }, 'events between processes: Redis unreachable, events of other processes are missed'),
      )
    : null;
  const events = createEventBus({
    now: () => clock.now(),
    transport: redis ?? notify,
    onError: (err) => log.error({ err }, 'an event listener failed'),
  });
  // Caches follow the other processes where they share a PostgreSQL database (on SQLite one
  // process owns it, Redis or not).
  const changes = notify && events.feed ? (redis ? withInvalidations(notify, events.feed) : events.feed) : null;
  const replicas = await openReplicaReads(db, dialect, config.databaseReplicaUrls, events, log);
  const settings = createRuntimeSettings(config, createSettingsStore(db, clock, 1000, changes));
  const mailer = overrides.mailer ?? createMailer(config, settings);
  const webhookStore = createWebhookStore(db, clock, changes);
  // The hooks are registered once the services exist (extend/load.ts); they ask them through this.
  let hookServices: ServicesAsDeps | null = null;
  const hooks = createHookRegistry({
    clock,
    timeoutMs: config.hooks.timeoutSeconds * 1000,
    maxAttempts: config.hooks.maxAttempts,
    retryMs: config.hooks.retrySeconds * 1000,
    services: () => {
      if (!hookServices) throw new Error('a hook ran before the services were made');
      return hookServices;
    },
    onFailure: (err, hook, point) => log.error({ err, hook, point }, `hook ${hook} failed`),
  });
  // The kinds of job (core/jobs.ts): a new kind is its module and one line here.
  const jobKinds = [
    mailDelivery(mailer, (err, mail, attempts) =>
      log.warn({ err, kind: mail.kind, attempts }, 'a mail could not be delivered; it is tried again later'),
    ),
    webhookDelivery(
      webhookStore,
      {
        timeoutMs: config.webhooks.timeoutSeconds * 1000,
        maxAttempts: config.webhooks.maxAttempts,
        retryMs: config.webhooks.retrySeconds * 1000,
      },
      clock,
    ),
    hooks.job,
  ];
  const jobs = createJobQueue(
    createJobStore(db),
    jobKinds,
    clock,
    (err) => log.error({ err }, 'job queue'),
    (run) => logJobRun(log, run),
  );
  const mailQueue = createMailQueue(jobs, (err) => log.error({ err }, 'mail work after an answer failed'));
  const permissionStore = createPermissionStore(db, clock, 1000, changes);
  const audit = createAuditLog(db, clock);
  const keys = createKeyService({ repo: createKeyRepo(db), clock, changes, events });
  const users = createUserService({
    keys,
    audit,
    db,
    clock,
    mailer: mailQueue,
    sms: openSms(config, jobs, clock, log, overrides),
    permissionStore,
    runtimeSettings: settings,
    config,
    changes,
    events,
    hooks,
  });
  const dataStores = createDataStores({
    db,
    reads: replicas.reads,
    dialect,
    clock,
    permissionStore,
    config,
    events,
    users: users.directory,
    changes,
    hooks,
  });
  // The settings page's S3 key over the configuration's; while the settings cannot be read (the
  // database is down) the configuration's, so /ready names the database, not the blobs.
  const liveS3Keys = async (bucket: string) => {
    const s3Keys = (await settings.current().catch(() => null))?.s3Keys ?? {};
    return Object.hasOwn(s3Keys, bucket) ? s3Keys[bucket] : undefined;
  };
  const blobs = openBlobStores(config, liveS3Keys);
  // Each store's resumable uploads, beside its blobs (storage/partial-uploads.ts).
  const uploads = openStoresPartialUploads(config, liveS3Keys);
  const fileStores = createFileStores({
    db,
    reads: replicas.reads,
    clock,
    permissionStore,
    config,
    blobs,
    events,
    users: users.directory,
    hooks,
    uploads,
  });
  const collections = createCollections({
    db: db as Kysely<unknown>,
    reads: replicas.reads as Kysely<unknown>,
    dialect,
    clock,
    config,
    events,
    lookups: {
      users: users.directory,
      fileExists: async (store, path) => (await fileStores.get(store)?.holdsFile(path)) ?? false,
    },
    hooks,
  });
  try {
    await collections.open();
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const ctx: KindContext = {
    config,
    log,
    kinds,
    migrations: allMigrations,
    permissionStore,
    db,
    dialect,
    settings,
    mailer,
    mailQueue,
    jobs,
    users,
    dataStores,
    fileStores,
    collections,
    blobs,
    events,
    hooks,
    keys,
    audit,
  };
  hookServices = { collections, dataStores, fileStores, users, mail: mailQueue };
  // The hub and the webhooks are built here, not by the HTTP app, so that an embedding program
  // gets them too (issue 38, item 5); both know events only through the kinds' families.
  const families = kinds.flatMap((kind) => kind.events?.(ctx) ?? []);
  const webhooks = createWebhooks({
    events,
    store: webhookStore,
    families,
    jobs,
    clock,
    onError: (err) => log.error({ err }, 'webhooks'),
  });
  const hub = config.realtime.enabled
    ? createRealtimeHub({
        events,
        families,
        authenticate: (token) => users.authenticate(token),
        settings: realtimeSettings(config),
        now: () => systemClock.now(),
        onError: (err) => log.error({ err }, 'live changes'),
      })
    : null;
  // The extensions' jobs are kinds of the queue, registered before it starts (extend/jobs.ts).
  const extensionJobs = createExtensionJobs({
    queue: jobs,
    clock,
    log,
    services: { users, dataStores, fileStores, collections, mail: mailQueue },
  });
  scheduleUpkeep(extensionJobs.api, { config, clock, audit, fileStores, uploads });
  const backups = createBackups({
    config,
    db: db as Kysely<unknown>,
    dialect,
    migrations: allMigrations,
    runs: createBackupRunStore(db),
    target: openBackupTarget(config.backups.target, config.dataDir),
    clock,
    enqueue: (work, cause) => extensionJobs.api.enqueue(work === 'backup' ? BACKUP_JOB : CHECK_JOB, null, { cause }),
    queued: async () => {
      const system = programCaller('backups').principal;
      const kinds = [BACKUP_JOB, CHECK_JOB].map((name) => `job:${name}`);
      const counts = await Promise.all(kinds.map((kind) => jobs.counts(system, kind)));
      return counts.reduce((n, c) => n + c.due, 0);
    },
    audit,
  });
  scheduleBackups(config, extensionJobs.api, backups);
  // Expired sessions and single-use tokens are dead rows; clear them once an hour. A failed
  // purge changes nothing and is tried again the next hour.
  const requestRecords = config.requestLog.keep
    ? createRequestLogStore(db, {
        retentionHours: config.requestLog.retentionHours,
        onError: (err, what) => log.error({ err }, what),
      })
    : null;
  const purge = setInterval(() => void users.purgeExpired(programCaller('roost')).catch(() => {}), 3600_000).unref();
  return {
    ...ctx,
    webhooks,
    hub,
    jobCatalog: extensionJobs.catalog,
    extensionJobs: extensionJobs.api,
    requestRecords,
    backups,
    readers: replicas.readers,
    start() {
      jobs.start();
      webhooks.start();
      extensionJobs.start();
    },
    async close() {
      clearInterval(purge);
      extensionJobs.close();
      hub?.close();
      await webhooks.close();
      blobs.close();
      uploads.close();
      backups.close();
      await events.flush();
      await notify?.close();
      await redis?.close();
      await mailQueue.close();
      await jobs.close();
      await mailer.close();
      await requestRecords?.close();
      await replicas.close();
      await db.destroy();
    },
  };
}
