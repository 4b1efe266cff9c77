import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import {
  identityPolicySchema,
  mailAddressSchema,
  secondFactorGroupsSchema,
  mailFromSchema,
  pageUrlSchema,
  smtpUrlSchema,
} from './config-parts.js';
import { providerRedirectsSchema, providersSchema } from './config-signin.js';
import type { Config } from './config.js';
import { commonErrors, type FieldProblem } from './errors.js';

/**
 * An access key per S3 bucket: what can change at run time of a blob store. The bucket, its
 * endpoint and prefix stay in the configuration: the files are where they point, a change would
 * lose them (docs/admin.md, "Settings").
 */
const s3KeysSchema = z
  .record(
    z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/),
    z.object({ accessKeyId: z.string().min(1).max(256), secretAccessKey: z.string().min(1).max(256) }).strict(),
  )
  .refine((keys) => Object.keys(keys).length <= 50, 'at most 50 buckets');

/**
 * Settings an administrator changes at run time, in the management backend: the boot
 * configuration (file and environment) gives their defaults, a value stored in the database wins
 * over it. Stored under the key's configuration path (`users.identityPolicy`, `mail.smtpUrl`) and
 * validated with the same schema as the configuration key. `null` means "none" (no SMTP server:
 * the outbox; no administrator address; Roost's own page instead of a configured url).
 */
export const RUNTIME_SETTINGS = {
  identityPolicy: { path: 'users.identityPolicy', schema: identityPolicySchema },
  activationUrl: { path: 'users.activationUrl', schema: pageUrlSchema.nullable() },
  verifyEmailUrl: { path: 'users.verifyEmailUrl', schema: pageUrlSchema.nullable() },
  resetPasswordUrl: { path: 'users.resetPasswordUrl', schema: pageUrlSchema.nullable() },
  mailFrom: { path: 'mail.from', schema: mailFromSchema.max(300) },
  adminAddress: { path: 'mail.adminAddress', schema: mailAddressSchema.max(254).nullable() },
  smtpUrl: { path: 'mail.smtpUrl', schema: smtpUrlSchema.pipe(z.string().max(2000)).nullable() },
  secondFactorGroups: { path: 'users.secondFactorGroups', schema: secondFactorGroupsSchema },
  providers: { path: 'users.providers', schema: providersSchema },
  providerRedirects: { path: 'users.providerRedirects', schema: providerRedirectsSchema },
  linkProvidersByEmail: { path: 'users.linkProvidersByEmail', schema: z.boolean() },
  // The rate limit of the guarded operations (their routes read it per request: liveRateLimit).
  rateLimitMax: { path: 'rateLimit.max', schema: z.number().int().min(1).max(1_000_000) },
  rateLimitWindowSeconds: { path: 'rateLimit.windowSeconds', schema: z.number().int().min(1).max(86_400) },
  // Access keys of S3 buckets by bucket name, over the configuration's (storage/s3-blob-store.ts).
  s3Keys: { path: 'blobs.s3Keys', schema: s3KeysSchema },
} as const;

export type RuntimeSettingKey = keyof typeof RUNTIME_SETTINGS;
export type RuntimeSettings = { readonly [K in RuntimeSettingKey]: z.output<(typeof RUNTIME_SETTINGS)[K]['schema']> };

/** One stored value, with when and by whom it was set. */
export interface StoredSetting {
  value: unknown;
  changed: number | null;
  changedBy: string | null;
}

/**
 * The port to the stored values (storage/settings-store.ts). `read` may answer from memory for a
 * short, bounded time; `write` sets (`value` given) or removes (`value` undefined) keys at once.
 */
export interface SettingsStore {
  read(): Promise<ReadonlyMap<string, StoredSetting>>;
  write(changes: readonly { key: string; value?: unknown }[], by: string | null): Promise<void>;
}

const KEYS = Object.keys(RUNTIME_SETTINGS) as RuntimeSettingKey[];

/** The settings as the boot configuration has them. */
function bootSettings(config: Config): RuntimeSettings {
  return Object.freeze({
    identityPolicy: config.users.identityPolicy,
    activationUrl: config.users.activationUrl ?? null,
    verifyEmailUrl: config.users.verifyEmailUrl ?? null,
    resetPasswordUrl: config.users.resetPasswordUrl ?? null,
    mailFrom: config.mail.from,
    adminAddress: config.mail.adminAddress ?? null,
    smtpUrl: config.mail.smtpUrl ?? null,
    secondFactorGroups: config.users.secondFactorGroups,
    providers: config.users.providers,
    providerRedirects: config.users.providerRedirects,
    linkProvidersByEmail: config.users.linkProvidersByEmail,
    rateLimitMax: config.rateLimit.max,
    rateLimitWindowSeconds: config.rateLimit.windowSeconds,
    s3Keys: {},
  });
}

/**
 * The rate limit of the guarded operations as @fastify/rate-limit takes it: read per request
 * from the settings in force (cached by the settings store for a second), so a change on the
 * settings page applies at once, in every process on the database.
 */
export function liveRateLimit(settings: Pick<RuntimeSettingsService, 'current'>) {
  return {
    max: async () => (await settings.current()).rateLimitMax,
    timeWindow: async () => (await settings.current()).rateLimitWindowSeconds * 1000,
  };
}

export interface RuntimeSettingsService {
  /** The boot configuration's values: the defaults. */
  readonly boot: RuntimeSettings;
  /** The values in force: stored ones over the boot configuration. */
  current(): Promise<RuntimeSettings>;
  /** The keys set in the database, with when and by whom. */
  overrides(): Promise<Partial<Record<RuntimeSettingKey, StoredSetting>>>;
  /**
   * Validates and stores the given keys (all or none; throws `validation_failure` with the
   * problems by key). A value equal to the boot configuration's removes the stored one, so the
   * key follows the configuration again. Answers the values in force afterwards.
   */
  change(values: Partial<Record<RuntimeSettingKey, unknown>>, by: string | null): Promise<RuntimeSettings>;
  /** Removes every stored value: the boot configuration applies again. */
  reset(by: string | null): Promise<RuntimeSettings>;
}

/**
 * The runtime settings over a store. A stored value that no longer passes its schema (edited by
 * hand, or from an older release) is ignored, so the boot value applies.
 */
export function createRuntimeSettings(config: Config, store: SettingsStore): RuntimeSettingsService {
  const boot = bootSettings(config);
  // The merge is kept with the map it came from: the store hands out the same map while cached.
  const merged = new WeakMap<ReadonlyMap<string, StoredSetting>, RuntimeSettings>();

  function parsed(stored: ReadonlyMap<string, StoredSetting>): Partial<Record<RuntimeSettingKey, unknown>> {
    const out: Partial<Record<RuntimeSettingKey, unknown>> = {};
    for (const key of KEYS) {
      const row = stored.get(RUNTIME_SETTINGS[key].path);
      if (!row) continue;
      const value = RUNTIME_SETTINGS[key].schema.safeParse(row.value);
      if (value.success) out[key] = value.data;
    }
    return out;
  }

  async function current(): Promise<RuntimeSettings> {
    const stored = await store.read();
    let settings = merged.get(stored);
    if (!settings) {
      settings = Object.freeze({ ...boot, ...parsed(stored) }) as RuntimeSettings;
      merged.set(stored, settings);
    }
    return settings;
  }

  return {
    boot,
    current,
    async overrides() {
      const stored = await store.read();
      const valid = parsed(stored);
      const out: Partial<Record<RuntimeSettingKey, StoredSetting>> = {};
      for (const key of KEYS) {
        const row = stored.get(RUNTIME_SETTINGS[key].path);
        if (row && key in valid) out[key] = row;
      }
      return out;
    },
    async change(values, by) {
      const problems: FieldProblem[] = [];
      const changes: { key: string; value?: unknown }[] = [];
      for (const [key, raw] of Object.entries(values)) {
        // Own keys only: `constructor` is no setting.
        const setting = Object.hasOwn(RUNTIME_SETTINGS, key) ? RUNTIME_SETTINGS[key as RuntimeSettingKey] : undefined;
        if (!setting) {
          problems.push([key, 'unknown']);
          continue;
        }
        const value = setting.schema.safeParse(raw);
        if (!value.success) problems.push([key, 'invalid']);
        else
          changes.push(
            // By value: a list (`secondFactorGroups`) equal to the boot one is not the same object.
            isDeepStrictEqual(value.data, boot[key as RuntimeSettingKey])
              ? { key: setting.path }
              : { key: setting.path, value: value.data },
          );
      }
      if (problems.length) throw commonErrors.validation_failure({ fields: problems });
      if (changes.length) await store.write(changes, by);
      return current();
    },
    async reset(by) {
      await store.write(
        KEYS.map((key) => ({ key: RUNTIME_SETTINGS[key].path })),
        by,
      );
      return current();
    },
  };
}
