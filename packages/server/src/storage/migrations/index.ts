import { Migrator, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import * as users from './2026-11-21-01-users.js';
import * as datastore from './2026-11-22-01-datastore.js';
import * as filestore from './2026-11-22-02-filestore.js';
import * as settingsAudit from './2026-11-23-01-settings-audit.js';
import * as signinThrottle from './2026-11-24-01-signin-throttle.js';
import * as mailQueue from './2026-11-24-02-mail-queue.js';
import * as webhooks from './2026-11-26-01-webhooks.js';
import * as secondFactor from './2026-11-27-01-second-factor.js';
import * as providers from './2026-11-28-01-providers.js';
import * as passkeys from './2026-11-28-02-passkeys.js';
import * as datastoreCounts from './2026-11-29-01-datastore-counts.js';
import * as jobs from './2026-11-30-01-jobs.js';
import * as collections from './2026-12-01-01-collections.js';
import * as keysAudit from './2026-12-02-01-keys-audit.js';
import * as requestLogs from './2026-12-02-02-request-logs.js';
import * as backups from './2026-12-02-03-backups.js';
import * as signinKeys from './2026-12-03-01-signin-keys.js';
import * as directUploads from './2026-12-03-02-direct-uploads.js';
import * as identityProvider from './2026-12-03-03-identity-provider.js';
import * as jobRequests from './2026-12-03-04-job-requests.js';
import * as anonymousUsers from './2026-12-03-05-anonymous-users.js';
import * as smsPhones from './2026-12-05-01-sms-phones.js';
import * as samlFlows from './2026-12-05-02-saml-flows.js';
import * as scim from './2026-12-07-01-scim.js';

/** Every migration in order. Never edit one that has been released; add a new file. */
export const migrations: Readonly<Record<string, Migration>> = {
  '2026-11-21-01-users': users,
  '2026-11-22-01-datastore': datastore,
  '2026-11-22-02-filestore': filestore,
  '2026-11-23-01-settings-audit': settingsAudit,
  '2026-11-24-01-signin-throttle': signinThrottle,
  '2026-11-24-02-mail-queue': mailQueue,
  '2026-11-26-01-webhooks': webhooks,
  '2026-11-27-01-second-factor': secondFactor,
  '2026-11-28-01-providers': providers,
  '2026-11-28-02-passkeys': passkeys,
  '2026-11-29-01-datastore-counts': datastoreCounts,
  '2026-11-30-01-jobs': jobs,
  '2026-12-01-01-collections': collections,
  '2026-12-02-01-keys-audit': keysAudit,
  '2026-12-02-02-request-logs': requestLogs,
  '2026-12-02-03-backups': backups,
  '2026-12-03-01-signin-keys': signinKeys,
  '2026-12-03-02-direct-uploads': directUploads,
  '2026-12-03-03-identity-provider': identityProvider,
  '2026-12-03-04-job-requests': jobRequests,
  '2026-12-03-05-anonymous-users': anonymousUsers,
  '2026-12-05-01-sms-phones': smsPhones,
  '2026-12-05-02-saml-flows': samlFlows,
  '2026-12-07-01-scim': scim,
};

/** Bring the database to the latest schema; throws with the failing migration's name. */
export async function migrateToLatest(
  db: Kysely<unknown>,
  list: Readonly<Record<string, Migration>> = migrations,
): Promise<MigrationResultSet['results']> {
  return migrateTo(db, null, list);
}

/** Bring the database to the schema of migration `target` (null: the latest), never down. */
export async function migrateTo(
  db: Kysely<unknown>,
  target: string | null,
  list: Readonly<Record<string, Migration>> = migrations,
): Promise<MigrationResultSet['results']> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...list }) } });
  const { error, results } = target === null ? await migrator.migrateToLatest() : await migrator.migrateTo(target);
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return results;
}

/** The names of the migrations applied to this database, in order. */
export async function appliedMigrations(
  db: Kysely<unknown>,
  list: Readonly<Record<string, Migration>> = migrations,
): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...list }) } });
  return (await migrator.getMigrations()).filter((m) => m.executedAt !== undefined).map((m) => m.name);
}
