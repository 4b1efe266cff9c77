import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import {
  auditOptions,
  backupsOptions,
  blobStoreOptions,
  collectionName,
  collectionOptions,
  databaseFields,
  dataStoreOptions,
  directWithoutS3,
  fileStoreOptions,
  requestLogOptions,
  mailAddressSchema,
  mailFromSchema,
  metricsOptions,
  rateLimit,
  smtpUrlSchema,
  storeName,
} from './config-parts.js';
import { identityProviderOptions, userOptions } from './config-users.js';

// The providers' type, where the services have always found it.
export type { ProviderConfig } from './config-signin.js';
export type { SamlConnectionConfig } from './config-signin.js';

/**
 * Boot configuration: read once at start from `roost.config.json` / `roost.config.ts` and
 * `ROOST_*` environment variables (the environment wins), validated with every problem reported
 * at once, then frozen. This is the only module that reads `process.env`.
 */

/** A function of `extend`: called with the extension API (extend/extension.ts `RoostExtension`). */
const extensionFunction = z.custom<(roost: never) => unknown>((v) => typeof v === 'function', {
  message: 'must be a function (defineExtension) or a list of them',
});

export const configSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(8080),
    host: z.string().min(1).default('127.0.0.1'),
    /** Where the SQLite file, file blobs and the mail outbox live. */
    dataDir: z.string().min(1).default('./data'),
    /**
     * `full`: an acknowledged write survives a power loss (SQLite `synchronous=FULL`, local blobs'
     * directories synced after each rename). `fast`: it survives a crash of Roost, not of the
     * machine (SQLite `synchronous=NORMAL`). docs/security.md, "Durability".
     */
    durability: z.enum(['full', 'fast']).default('full'),
    /** `databaseUrl` (PostgreSQL; unset: SQLite) and its read replicas (config-parts.ts). */
    ...databaseFields,
    /**
     * PostgreSQL reached without a pooler, for what needs a connection of its own: LISTEN (the
     * change feed), migrations. Unset: `databaseUrl` is both. Set when `databaseUrl` is a
     * transaction pooler such as PgBouncer (docs/scaling.md, "Behind PgBouncer").
     */
    databaseDirectUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
    /** The address users reach Roost at; links in mails start with it. */
    publicUrl: z.string().url().optional(),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** One log line per request at `info`, in pino-http's shape with Roost's fields (http/request-log.ts). */
    logRequests: z.boolean().default(true),
    requestLog: requestLogOptions,
    /** Largest request body in bytes (file uploads have their own limit). */
    bodyLimit: z
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    trustProxy: z.boolean().default(false),
    /** Take a request's `x-request-id` as its id (http/request-id.ts); unset: as `trustProxy`. */
    trustRequestId: z.boolean().optional(),
    /** How long a stop serves on with `/ready` at 503, for a load balancer (http/shutdown.ts `Drain`). */
    shutdownDrainSeconds: z.number().min(0).max(3600).default(0),
    /** How long a stop waits for running requests before it closes their connections (http/shutdown.ts). */
    shutdownGraceSeconds: z.number().min(0).max(3600).default(10),
    /** Origins allowed to call Roost from a browser; none by default. */
    corsOrigins: z.array(z.string().url()).default([]),
    users: userOptions.prefault({}),
    mail: z
      .object({
        /** `smtp://user:pass@host:port` or `smtps://...`; unset keeps mails in the outbox. */
        smtpUrl: smtpUrlSchema.optional(),
        from: mailFromSchema.default('Roost <roost@localhost>'),
        /** Receives `message` mails and sign-up notifications. */
        adminAddress: mailAddressSchema.optional(),
      })
      .strict()
      .prefault({}),
    rateLimit: rateLimit.prefault({}),
    audit: auditOptions.prefault({}),
    metrics: metricsOptions.prefault({}),
    /** Live changes over `/api/realtime` (docs/realtime.md): limits and timings. */
    realtime: z
      .object({
        enabled: z.boolean().default(true),
        /** A comment line on every stream this often, so proxies and clients see it alive. */
        heartbeatSeconds: z.number().min(0.05).max(300).default(25),
        maxStreamsPerUser: z.number().int().min(1).default(20),
        maxStreamsPerAddress: z.number().int().min(1).default(200),
        maxTopicsPerStream: z.number().int().min(1).max(10_000).default(100),
        /** What may wait for a slow reader; past it its connection is dropped without a frame (realtime/stream.ts). */
        bufferBytes: z
          .number()
          .int()
          .min(1024)
          .default(1024 * 1024),
        /** How many recent events are kept for clients that come back (`Last-Event-ID`), and how long. */
        replayEvents: z.number().int().min(1).default(10_000),
        replaySeconds: z.number().min(1).default(300),
        /**
         * `redis://...`: events go between processes over this Redis's pub/sub instead of
         * PostgreSQL's NOTIFY (storage/redis-events.ts); unset, over the change feed.
         */
        redisUrl: z
          .string()
          .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
          .optional(),
      })
      .strict()
      .prefault({}),
    /** Deliveries of webhooks (docs/realtime.md, "Webhooks"). */
    webhooks: z
      .object({
        /** How long a receiver has to answer one delivery. */
        timeoutSeconds: z.number().positive().max(300).default(10),
        /** Tries of one delivery before it is kept as failed. */
        maxAttempts: z.number().int().min(1).max(100).default(8),
        /** The wait before the second try; each further wait doubles, up to an hour. */
        retrySeconds: z.number().min(0.01).default(10),
      })
      .strict()
      .prefault({}),
    /** The team's hooks (docs/hooks.md). */
    hooks: z
      .object({
        /** How long one hook may run; a before-hook over it fails its write (503 `hook_timeout`). */
        timeoutSeconds: z.number().positive().max(300).default(5),
        /** Tries of one after-hook before its job is kept as failed. */
        maxAttempts: z.number().int().min(1).max(100).default(8),
        /** The wait before an after-hook's second try; each further wait doubles, up to an hour. */
        retrySeconds: z.number().min(0.01).default(2),
        /** Whether the TypeScript files of `hooks/` are type-checked at start (a type error stops it). */
        typecheck: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    /** Backups on a schedule, their target and retention, the restore check (config-parts.ts `backupsOptions`). */
    backups: backupsOptions.prefault({}),
    /**
     * Extensions (docs/hooks.md): a function made with `defineExtension`, or a list of them, run at
     * start beside the files of `hooks/`. Typed loosely here (core/ knows no extension API: extend/).
     */
    extend: z.union([extensionFunction, z.array(extensionFunction)]).optional(),
    /** Where file contents live, for every file store without `blobs` of its own. */
    blobs: blobStoreOptions.default({ kind: 'local' }),
    dataStores: z.record(storeName, dataStoreOptions.prefault({})).prefault({ data: {} }),
    fileStores: z.record(storeName, fileStoreOptions.prefault({})).prefault({ files: {} }),
    /** Collections declared here are made, or changed to match, when Roost starts (docs/collections.md). */
    collections: z.record(collectionName, collectionOptions).default({}),
    /** Memory for records read on SQLite (one process owns the file: collections/record-cache.ts); 0 turns it off. */
    recordCacheBytes: z
      .number()
      .int()
      .min(0)
      .default(16 * 1024 * 1024),
    /** Roost as an OpenID Connect provider for the team's other applications (identity-provider/). */
    identityProvider: identityProviderOptions.prefault({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.databaseDirectUrl && !config.databaseUrl)
      ctx.addIssue({ code: 'custom', path: ['databaseDirectUrl'], message: 'needs databaseUrl (the pooled one) too' });
    for (const name of Object.keys(config.fileStores)) {
      if (name in config.dataStores) {
        ctx.addIssue({ code: 'custom', path: ['fileStores', name], message: 'a data store has this name already' });
      }
    }
    for (const issue of directWithoutS3(config.fileStores, config.blobs)) ctx.addIssue({ code: 'custom', ...issue });
    // A webhook names its service by name alone (realtime/webhooks.ts): one name, one service.
    for (const name of Object.keys(config.collections)) {
      if (name in config.dataStores || name in config.fileStores) {
        ctx.addIssue({
          code: 'custom',
          path: ['collections', name],
          message: 'a data or file store has this name already',
        });
      }
    }
  });

export type ConfigInput = z.input<typeof configSchema>;

/**
 * The configuration as `roost.config.ts` exports it, typed as it is written (docs/configuration.md);
 * Roost validates it when it starts all the same.
 */
export function defineConfig(config: ConfigInput): ConfigInput {
  return config;
}
type ParsedConfig = z.output<typeof configSchema>;
export type DataStoreOptions = z.output<typeof dataStoreOptions>;
export type FileStoreOptions = z.output<typeof fileStoreOptions>;
export type BlobStoreOptions = z.output<typeof blobStoreOptions>;

/** The validated configuration; `publicUrl` and `dataDir` are always filled in. */
export type Config = Readonly<ParsedConfig & { publicUrl: string; dataDir: string }>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const ENV_KEYS: Record<string, (input: Record<string, unknown>, value: string) => void> = {
  ROOST_PORT: (c, v) => (c.port = /^\d+$/.test(v) ? Number(v) : v),
  ROOST_HOST: (c, v) => (c.host = v),
  ROOST_DATA_DIR: (c, v) => (c.dataDir = v),
  ROOST_DATABASE_URL: (c, v) => (c.databaseUrl = v),
  ROOST_DATABASE_REPLICA_URLS: (c, v) => (c.databaseReplicaUrls = v.split(',').filter((url) => url.trim() !== '')),
  ROOST_DATABASE_DIRECT_URL: (c, v) => (c.databaseDirectUrl = v),
  ROOST_PUBLIC_URL: (c, v) => (c.publicUrl = v),
  ROOST_LOG_LEVEL: (c, v) => (c.logLevel = v),
  ROOST_SMTP_URL: (c, v) => {
    c.mail = { ...(c.mail as object | undefined), smtpUrl: v };
  },
  ROOST_SECRETS_KEY: (c, v) => {
    c.users = { ...(c.users as object | undefined), secretsKey: v };
  },
  ROOST_REDIS_URL: (c, v) => {
    c.rateLimit = { ...(c.rateLimit as object | undefined), redisUrl: v };
  },
};

/** Validate a configuration object (from a file, the environment or a test). */
export function parseConfig(input: unknown, baseDir = process.cwd()): Config {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`),
    );
  }
  const c = parsed.data;
  if (c.databaseReplicaUrls.length > 0 && c.databaseUrl === undefined)
    throw new ConfigError(['databaseReplicaUrls: replicas are read beside their primary, databaseUrl, which is unset']);
  const dataDir = isAbsolute(c.dataDir) ? c.dataDir : resolve(baseDir, c.dataDir);
  // A local blob directory given relative is relative to the working directory, as `dataDir` is.
  const absoluteBlobs = <T extends BlobStoreOptions | undefined>(b: T): T =>
    b?.kind === 'local' && b.dir !== undefined
      ? ({ ...b, dir: isAbsolute(b.dir) ? b.dir : resolve(baseDir, b.dir) } as T)
      : b;
  c.blobs = absoluteBlobs(c.blobs);
  for (const store of Object.values(c.fileStores)) if (store.blobs) store.blobs = absoluteBlobs(store.blobs);
  c.backups.target = absoluteBlobs(c.backups.target);
  const publicUrl = (c.publicUrl ?? `http://localhost:${c.port}`).replace(/\/+$/, '');
  return deepFreeze({ ...c, dataDir, publicUrl });
}

/**
 * Read the configuration file (`ROOST_CONFIG`, else `roost.config.ts` or `roost.config.json`
 * in `cwd`) and the environment, and validate both.
 */
export async function loadConfig(options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Config> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const input: Record<string, unknown> = { ...(await readConfigFile(cwd, env.ROOST_CONFIG)) };
  for (const [key, apply] of Object.entries(ENV_KEYS)) {
    const value = env[key];
    if (value !== undefined && value !== '') apply(input, value);
  }
  return parseConfig(input, cwd);
}

/**
 * A configuration module: TypeScript through tsx for this import alone (`tsImport`), so that it
 * loads however Roost itself runs (bin/roost.js through tsx, a bundle, an embedding program's
 * compiled JavaScript); JavaScript as it is.
 */
export async function importConfigModule(url: string): Promise<unknown> {
  if (!/\.[cm]?ts$/.test(url)) return import(url);
  const { tsImport } = await import('tsx/esm/api');
  const module: { default?: unknown } = await tsImport(url, import.meta.url);
  // A file in a folder whose package.json does not say "type": "module" is compiled to CommonJS:
  // its exports then are the default of what the import answers, marked __esModule.
  const exports = module.default as { __esModule?: boolean } | undefined;
  return exports?.__esModule ? exports : module;
}

async function readConfigFile(cwd: string, explicit: string | undefined): Promise<Record<string, unknown>> {
  const candidates = explicit
    ? [resolve(cwd, explicit)]
    : ['roost.config.ts', 'roost.config.json'].map((f) => resolve(cwd, f));
  const file = candidates.find((f) => existsSync(f));
  if (!file) {
    if (explicit) throw new ConfigError([`ROOST_CONFIG: no file at ${candidates[0]}`]);
    return {};
  }
  let value: unknown;
  try {
    value = file.endsWith('.json')
      ? JSON.parse(readFileSync(file, 'utf8'))
      : ((await importConfigModule(pathToFileURL(file).href)) as { default?: unknown }).default;
  } catch (err) {
    throw new ConfigError([`${file}: ${(err as Error).message}`]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError([`${file}: must hold an object (a .ts file exports it as default)`]);
  }
  return value as Record<string, unknown>;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
