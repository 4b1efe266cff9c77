import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The parts of the boot configuration's schema (core/config.ts `configSchema`): store names and
 * the options of each store kind, blob stores, mail, rate limits (the sign-in providers' are in
 * config-signin.ts). Kept apart from the schema's assembly and the loading so that each file
 * reads on its own.
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
  'oidc',
]);

export const storeName = z
  .string()
  .regex(STORE_NAME, 'a store name is 1-63 characters of a-z, 0-9, - and _, starting with a letter or digit')
  .refine((n) => !RESERVED_NAMES.has(n), { message: 'this name is reserved by Roost' });

export const seconds = z.number().int().positive();

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
export const smtpUrlSchema = z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL');
export const mailFromSchema = z.string().min(3);
export const mailAddressSchema = z.string().email();

export const dataStoreOptions = z
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
export const blobStoreOptions = z.discriminatedUnion('kind', [
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

/**
 * Transfers between clients and a store's bucket that leave Roost out of the bytes' way
 * (docs/filestore.md, "Direct uploads and downloads (S3)"; filestore/direct-ops.ts). Only for a store
 * whose blobs are on S3 (checked in core/config.ts).
 */
const directTransferOptions = z
  .object({
    /** `@directUpload` hands out a presigned PUT of the announced size and type; `@directFinish` records it. */
    uploads: z.boolean().default(true),
    /** A download (a plain GET, `@read`) answers 302 to a presigned GET; `@link` answers its URL as JSON. */
    downloads: z.boolean().default(false),
    /** How long a presigned URL, and an upload's token, stay valid (S3 takes at most 7 days). */
    expiresSeconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 86_400)
      .default(300),
  })
  .strict();

/**
 * The stores whose `direct` setting has no bucket to sign with (a presigned URL is S3's:
 * filestore/direct-ops.ts): an issue of the configuration for each (core/config.ts).
 */
export function directWithoutS3(
  stores: Record<string, { direct?: object | undefined; blobs?: { kind: string } | undefined }>,
  blobs: { kind: string },
): { path: string[]; message: string }[] {
  return Object.entries(stores)
    .filter(([, store]) => store.direct && (store.blobs ?? blobs).kind !== 's3')
    .map(([name]) => ({
      path: ['fileStores', name, 'direct'],
      message: "direct uploads and downloads need the store's blobs on S3 (blobs: { kind: 's3', ... })",
    }));
}

/** The thumbnails of a file store (filestore/thumbnails/): which sizes, and the limits of making one. */
const thumbnailOptions = z
  .object({
    /**
     * The `thumb` values served, in PocketBase's syntax (`100x100`, `100x100t`, `100x100b`,
     * `100x100f`, `0x100`, `100x0`; filestore/thumbnails/thumb-spec.ts); none by default.
     */
    sizes: z
      .array(
        z
          .string()
          .regex(
            /^(0x[1-9]\d{0,3}|[1-9]\d{0,3}x0|[1-9]\d{0,3}x[1-9]\d{0,3}[tbf]?)$/,
            'WxH, WxHt, WxHb, WxHf, 0xH or Wx0, each side at most 9999',
          ),
      )
      .max(100)
      .default([]),
    /** Images with more pixels (width × height, as declared) are refused before they are decoded. */
    maxInputPixels: z.number().int().min(1).default(50_000_000),
    /** Larger image files are refused unread (an image is read into memory to be decoded). */
    maxInputBytes: z
      .number()
      .int()
      .min(1)
      .default(64 * 1024 * 1024),
    /** Thumbnails made at once by this store in a process; the others wait (each holds its image in memory). */
    concurrency: z.number().int().min(1).max(64).default(Math.max(2, availableParallelism())),
    /** Making one thumbnail stops after this long. */
    timeoutSeconds: z.number().int().min(1).max(600).default(10),
    /** Thumbnails kept in memory, in bytes, on top of those kept beside their image (0: none). */
    memoryBytes: z
      .number()
      .int()
      .min(0)
      .default(32 * 1024 * 1024),
  })
  .strict();

export const fileStoreOptions = z
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
    /** A resumable (tus) upload not complete this long after it began is removed (docs/filestore.md). */
    uploadExpirySeconds: seconds.default(24 * 3600),
    /** Direct uploads and downloads between clients and the bucket (`directTransferOptions`); S3 blobs only. */
    direct: directTransferOptions.optional(),
    /** Thumbnails of its images, `?thumb=WxH` on a download (docs/filestore.md, "Thumbnails"). */
    thumbnails: thumbnailOptions.prefault({}),
  })
  .strict();

export const rateLimit = z
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

/** A rule of a collection (docs/collections.md, "Rules"): null for administrators only, "" for anyone. */
const collectionRule = z.string().max(4096).nullable().default(null);

/** Who may do what to a collection's records, one rule per operation (collections/collection-rules.ts). */
export const collectionRulesOptions = z
  .object({
    list: collectionRule,
    view: collectionRule,
    create: collectionRule,
    update: collectionRule,
    delete: collectionRule,
  })
  .strict()
  .prefault({});

const fieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'a field name is letters, digits and _');
/**
 * Fields a schema change renames, old name to new (collections/collection-definitions.ts):
 * their values move with the migration. Kept in the configuration after, it changes nothing.
 */
export const fieldRenames = z
  .record(fieldName, fieldName)
  .refine((r) => Object.keys(r).length <= 64, { message: 'at most 64 renames' });

/**
 * A collection declared in the configuration: its JSON Schema (checked against the subset when
 * Roost starts, collections/collection-schema.ts) and its rules.
 */
export const collectionOptions = z
  .object({
    schema: z.record(z.string(), z.unknown()),
    rules: collectionRulesOptions,
    renames: fieldRenames.optional(),
  })
  .strict();

/** A collection's name: a table's name and a URL segment (collections/collection-fields.ts). */
export const collectionName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,40}$/, 'a collection name is 1-41 characters of a-z, 0-9 and _, starting with a letter')
  .refine((n) => n !== 'batch' && n !== 'users', { message: 'this name is reserved by Roost' });

/** The recent requests kept in the database for the admin logs page (storage/request-log-store.ts). */
export const requestLogOptions = z
  .object({
    keep: z.boolean().default(false),
    retentionHours: z.number().min(1).max(8760).default(72),
  })
  .strict()
  .prefault({});
/**
 * Backups on a schedule, their target and retention, and the restore check (docs/operations.md,
 * "Backups"; backups/backups-service.ts). Made on the admin backups page too, whatever the schedule.
 */
export const backupsOptions = z
  .object({
    /** A cron (croner: five or six fields, read in UTC) of the scheduled backups; unset: none. */
    schedule: z.string().min(1).max(200).optional(),
    /** Where archives go: a folder (`dir`, by default `<dataDir>/backups`) or an S3 bucket. */
    target: blobStoreOptions.default({ kind: 'local' }),
    /** Keep the newest this many archives; older ones are deleted after each backup. */
    keep: z.number().int().min(1).max(10_000).default(7),
    /** Delete archives older than this many days too (never the newest); unset: by count alone. */
    keepDays: z.number().int().min(1).max(36_500).optional(),
    /** A cron of the restore check: the newest archive restored into a scratch database, counts compared. */
    checkSchedule: z.string().min(1).max(200).optional(),
    /** A backup or check that runs longer fails. */
    timeoutSeconds: z.number().int().min(10).max(86_400).default(3600),
  })
  .strict();

/** The audit log (docs/operations.md, "Audit log"): lines older than this are swept once a day. */
export const auditOptions = z.object({ retentionDays: z.number().int().min(1).max(36_500).default(365) }).strict();

/** `/metrics` (http/metrics.ts; docs/configuration.md, "metrics"). */
export const metricsOptions = z
  .object({
    /** `/metrics` and the per-request counting behind it (http/metrics.ts). */
    enabled: z.boolean().default(true),
    /**
     * Addresses or CIDR ranges (`10.0.0.0/8`, `::1`) that may read
     * /metrics without signing in; administrators always may.
     */
    allow: z.array(addressOrRange).default([]),
  })
  .strict();

/**
 * Read replicas of `databaseUrl` (docs/scaling.md, "Read replicas"): reads that may be a little
 * stale go to one of them, the caller's own writes are read back from where they are visible
 * (storage/replica-reads.ts). Each a `postgres://` URL; none: every read on the primary.
 */
const databaseReplicaUrls = z
  .array(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL of a replica of databaseUrl'))
  .max(16)
  .default([]);

/** Where the data is (core/config.ts `configSchema`); `ROOST_DATABASE_REPLICA_URLS` is comma-separated. */
export const databaseFields = {
  /** `postgres://...` selects PostgreSQL; unset means SQLite in `dataDir/roost.db`. */
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL (leave it unset for SQLite)')
    .optional(),
  databaseReplicaUrls,
};
