import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Boot configuration: read once at start from `roost.config.json` / `roost.config.ts` and
 * `ROOST_*` environment variables (the environment wins), validated with every problem reported
 * at once, then frozen. This is the only module that reads `process.env`.
 */

const STORE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** First path segments Roost itself uses; a store may not take them. */
const RESERVED_NAMES = new Set([
  'users',
  'admin',
  'openapi.json',
  'docs',
  'api',
  'static',
  'health',
  'ready',
  'metrics',
]);

const storeName = z
  .string()
  .regex(STORE_NAME, 'a store name is 1-63 characters of a-z, 0-9, - and _, starting with a letter or digit')
  .refine((n) => !RESERVED_NAMES.has(n), { message: 'this name is reserved by Roost' });

const seconds = z.number().int().positive();

/** An IPv4 or IPv6 address, or a CIDR range of them. */
const addressOrRange = z.string().refine(
  (entry) => {
    const [address = '', bits, extra] = entry.split('/');
    const version = isIP(address);
    if (version === 0 || extra !== undefined) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
  },
  { message: 'must be an IP address or a CIDR range such as 10.0.0.0/8' },
);

/*
 * Keys an administrator may also change at run time (core/runtime-settings.ts validates the
 * stored values with these same schemas; the boot configuration is their default).
 */
export const identityPolicySchema = z.enum(['name', 'email', 'either']);
/** Group names as permission entries name them; at most 50. */
export const secondFactorGroupsSchema = z.array(z.string().min(1).max(100)).max(50);
/** Only http(s): a `javascript:` or `data:` link in a mail would be an attack, not a page. */
export const pageUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
/**
 * A sign-in provider (users/provider-clients.ts): `oidc` is any OpenID Connect provider found by
 * discovery at `issuer`; `google`, `microsoft` (with `tenant`, `common` by default) and `gitlab`
 * (`issuer` for a self-managed one) are OpenID Connect with the issuer filled in; `github` is
 * OAuth2 with GitHub's user API (`issuer`: a GitHub Enterprise server). `signup` picks the
 * sign-up policy of a first sign-in; `auto` takes the first one open (docs/users.md, "Providers").
 */
const providerSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'lower-case letters, digits and -, starting with a letter'),
    kind: z.enum(['oidc', 'github', 'google', 'microsoft', 'gitlab']),
    name: z.string().min(1).max(60).optional(),
    clientId: z.string().min(1).max(500),
    clientSecret: z.string().min(1).max(2000).optional(),
    issuer: pageUrlSchema.pipe(z.string().max(2000)).optional(),
    tenant: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,100}$/)
      .optional(),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/))
      .max(30)
      .optional(),
    signup: z.enum(['auto', 'signupDirect', 'signupOptin', 'signupReview', 'off']).default('auto'),
  })
  .strict()
  .refine((p) => p.kind !== 'oidc' || p.issuer !== undefined, {
    message: 'an oidc provider needs its issuer',
    path: ['issuer'],
  });
export type ProviderConfig = z.output<typeof providerSchema>;
export const providersSchema = z
  .array(providerSchema)
  .max(20)
  .refine((list) => new Set(list.map((p) => p.id)).size === list.length, { message: 'two providers share an id' });
/** Where a provider sign-in may end besides Roost's own pages: a URL, or a prefix ending in `/`. */
export const providerRedirectsSchema = z.array(pageUrlSchema.pipe(z.string().max(2000))).max(50);
export const smtpUrlSchema = z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL');
export const mailFromSchema = z.string().min(3);
export const mailAddressSchema = z.string().email();

const dataStoreOptions = z
  .object({
    /** Who may read items: `sys:everyone` (public store) or `sys:authenticated`. */
    read: z.enum(['sys:everyone', 'sys:authenticated']).default('sys:authenticated'),
    maxKeyLength: z.number().int().min(1).max(4096).default(512),
    maxValueBytes: z
      .number()
      .int()
      .min(1)
      .max(16 * 1024 * 1024)
      .default(64 * 1024),
    maxBatch: z.number().int().min(1).max(10_000).default(100),
    defaultPageSize: z.number().int().min(1).max(10_000).default(50),
    maxPageSize: z.number().int().min(1).max(10_000).default(500),
    /** Memory for items read on SQLite (one process owns the file); 0 turns the cache off. */
    itemCacheBytes: z
      .number()
      .int()
      .min(0)
      .default(16 * 1024 * 1024),
  })
  .strict();

/**
 * Where file contents live: files under a directory (the default, `<dataDir>/blobs`), or an
 * S3-compatible bucket, which several processes on several machines can share.
 */
const blobStoreOptions = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('local'),
      /** Relative to `dataDir`'s parent like `dataDir` itself; unset means `<dataDir>/blobs`. */
      dir: z.string().min(1).optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('s3'),
      bucket: z
        .string()
        .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name is 3-63 characters of a-z, 0-9, . and -'),
      /** The service's address for anything but AWS itself (MinIO, Ceph, R2, ...); unset means AWS. */
      endpoint: z.string().url().optional(),
      region: z.string().min(1).default('us-east-1'),
      /** Leave both unset to use the AWS SDK's own chain (AWS_ACCESS_KEY_ID, instance roles, ...). */
      accessKeyId: z.string().min(1).optional(),
      secretAccessKey: z.string().min(1).optional(),
      /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (most non-AWS servers want it). */
      forcePathStyle: z.boolean().default(false),
      /** Put before every key, so several stores or deployments can share a bucket (`roost/files/`). */
      prefix: z
        .string()
        .max(512)
        .regex(/^[^\\]*$/, 'no backslashes')
        .default(''),
      /** Uploads larger than this go up in parts of this size (S3's minimum is 5 MiB). */
      partSizeBytes: z
        .number()
        .int()
        .min(5 * 1024 * 1024)
        .max(5 * 1024 * 1024 * 1024)
        .default(8 * 1024 * 1024),
    })
    .strict()
    .refine((o) => (o.accessKeyId === undefined) === (o.secretAccessKey === undefined), {
      message: 'give accessKeyId and secretAccessKey together, or neither',
    }),
]);

const fileStoreOptions = z
  .object({
    read: z.enum(['sys:everyone', 'sys:authenticated']).default('sys:authenticated'),
    maxFileBytes: z
      .number()
      .int()
      .min(1)
      .default(1024 * 1024 * 1024),
    defaultPageSize: z.number().int().min(1).max(10_000).default(50),
    maxPageSize: z.number().int().min(1).max(10_000).default(1000),
    /** This store's contents elsewhere than the global `blobs`. */
    blobs: blobStoreOptions.optional(),
  })
  .strict();

const rateLimit = z
  .object({
    /** Requests per window and client address, for each guarded operation (not sign-in: see below). */
    max: z.number().int().min(1).default(20),
    windowSeconds: seconds.default(60),
    /** Failed sign-ins per client address and window before that address is refused (successful ones do not count). */
    signinFailures: z.number().int().min(1).default(100),
    signinFailureWindowSeconds: seconds.default(15 * 60),
    /** Mails one account may have sent (verifyEmail, message), and mails one address may receive, per mail window. */
    mailsPerAccount: z.number().int().min(1).default(10),
    mailsPerRecipient: z.number().int().min(1).default(5),
    mailWindowSeconds: seconds.default(3600),
    /** `redis://...`: counters shared by every process using this Redis; unset keeps them per process. */
    redisUrl: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional(),
  })
  .strict();

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
    /** `postgres://...` selects PostgreSQL; unset means SQLite in `dataDir/roost.db`. */
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL (leave it unset for SQLite)')
      .optional(),
    /** The address users reach Roost at; links in mails start with it. */
    publicUrl: z.string().url().optional(),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** One log line per request at `info` (method, route, status, ms, request id, user id, address, failure code). */
    logRequests: z.boolean().default(true),
    /** Largest request body in bytes (file uploads have their own limit). */
    bodyLimit: z
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    trustProxy: z.boolean().default(false),
    /** How long a stop waits for running requests before it closes their connections (http/shutdown.ts). */
    shutdownGraceSeconds: z.number().min(0).max(3600).default(10),
    /** Origins allowed to call Roost from a browser; none by default. */
    corsOrigins: z.array(z.string().url()).default([]),
    users: z
      .object({
        /** What identifies a user at sign-in, token and reset: the name, the email or either. */
        identityPolicy: identityPolicySchema.default('either'),
        tokenLifetimeSeconds: seconds.default(14 * 24 * 3600),
        /**
         * 32 random bytes, base64 (`openssl rand -base64 32`): seals the second factors' secrets in
         * the database (users/secret-box.ts). The same key for every process; keep it out of backups.
         */
        secretsKey: z
          .string()
          .refine((k) => /^[A-Za-z0-9+/]{43}=$/.test(k) && Buffer.from(k, 'base64').length === 32, {
            message: 'give 32 random bytes as base64 (openssl rand -base64 32)',
          })
          .optional(),
        /** The longest a session lives however much it is used; then its user signs in again. */
        sessionMaxLifetimeSeconds: seconds.default(90 * 24 * 3600),
        /** How long a process may answer from its memory of a session; 0 always asks the database. */
        sessionCacheSeconds: z.number().min(0).max(60).default(2),
        activationLifetimeSeconds: seconds.default(3 * 24 * 3600),
        verifyEmailLifetimeSeconds: seconds.default(24 * 3600),
        resetLifetimeSeconds: seconds.default(3600),
        passwordMinLength: z.number().int().min(4).max(128).default(8),
        nameMinLength: z.number().int().min(1).max(40).default(3),
        dataMaxLength: z
          .number()
          .int()
          .min(0)
          .max(1024 * 1024)
          .default(10_000),
        /** Pages the mails link to; by default Roost's own pages under `publicUrl`. */
        activationUrl: pageUrlSchema.optional(),
        verifyEmailUrl: pageUrlSchema.optional(),
        resetPasswordUrl: pageUrlSchema.optional(),
        /** Failed sign-ins of one account before it is locked (docs/security.md, "Guessing is slowed"). */
        lockoutThreshold: z.number().int().min(1).default(10),
        /** The first lock; each further lock in a row lasts twice as long, up to `lockoutMaxSeconds`. */
        lockoutSeconds: seconds.default(60),
        lockoutMaxSeconds: seconds.default(15 * 60),
        /** How long a mailed sign-in code and link work (docs/users.md, "Sign-in by mail"). */
        signinCodeLifetimeSeconds: seconds.default(600),
        /** Members of these groups sign in with a second factor (docs/users.md, "Second factor"). */
        secondFactorGroups: secondFactorGroupsSchema.default([]),
        /**
         * The WebAuthn relying party of passkeys (docs/users.md, "Passkeys"): by default the host
         * of `publicUrl`; pages of other origins that register or use passkeys must be under it.
         */
        passkeyRpId: z
          .string()
          .regex(/^[a-z0-9.-]{1,253}$/, 'a host name such as example.com')
          .optional(),
        /** Origins whose pages may use passkeys; by default `publicUrl`'s and `corsOrigins`. */
        passkeyOrigins: z.array(pageUrlSchema).max(50).optional(),
        /** Sign-in providers: OpenID Connect and OAuth2 (docs/users.md, "Providers"). */
        providers: providersSchema.default([]),
        /** Apps a provider sign-in may return to, with a one-time grant (docs/users.md, "Providers"). */
        providerRedirects: providerRedirectsSchema.default([]),
        /**
         * A first provider sign-in whose email the provider says is verified joins the account of
         * that email, instead of being refused as taken. Off by default.
         */
        linkProvidersByEmail: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
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
    metrics: z
      .object({
        /** `/metrics` and the per-request counting behind it (http/metrics.ts). */
        enabled: z.boolean().default(true),
        /**
         * Addresses or CIDR ranges (`10.0.0.0/8`, `::1`) that may read
         * /metrics without signing in; administrators always may.
         */
        allow: z.array(addressOrRange).default([]),
      })
      .strict()
      .prefault({}),
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
    /** Where file contents live, for every file store without `blobs` of its own. */
    blobs: blobStoreOptions.default({ kind: 'local' }),
    dataStores: z.record(storeName, dataStoreOptions.prefault({})).prefault({ data: {} }),
    fileStores: z.record(storeName, fileStoreOptions.prefault({})).prefault({ files: {} }),
  })
  .strict()
  .superRefine((config, ctx) => {
    for (const name of Object.keys(config.fileStores)) {
      if (name in config.dataStores) {
        ctx.addIssue({ code: 'custom', path: ['fileStores', name], message: 'a data store has this name already' });
      }
    }
  });

export type ConfigInput = z.input<typeof configSchema>;
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
  const dataDir = isAbsolute(c.dataDir) ? c.dataDir : resolve(baseDir, c.dataDir);
  // A local blob directory given relative is relative to the working directory, as `dataDir` is.
  const absoluteBlobs = <T extends BlobStoreOptions | undefined>(b: T): T =>
    b?.kind === 'local' && b.dir !== undefined
      ? ({ ...b, dir: isAbsolute(b.dir) ? b.dir : resolve(baseDir, b.dir) } as T)
      : b;
  c.blobs = absoluteBlobs(c.blobs);
  for (const store of Object.values(c.fileStores)) if (store.blobs) store.blobs = absoluteBlobs(store.blobs);
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
      : ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
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
