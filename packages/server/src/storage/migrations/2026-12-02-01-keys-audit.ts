import type { Kysely } from 'kysely';

// API keys (keys/, issue 42 item 4), the audit log (storage/audit-store.ts, item 5) and
// impersonation (item 6). The
// settings' own `changed`/`changed_by` (2026-11-23-01-settings-audit) say only the last change of
// each value; the audit log keeps every change with its actor, address, before and after.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    // SHA-256 of the secret, hex (docs/security.md, "API keys"): the secret itself is shown once.
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull())
    // JSON list of scopes (core/api-keys.ts `KeyScope`).
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('expires', 'bigint')
    .addColumn('last_used', 'bigint')
    .addColumn('revoked', 'bigint')
    .execute();
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    // Who: a user's id and name, a key's `key:<id>`, or a program's name (`roost`, the CLI).
    .addColumn('actor', 'varchar(200)', (c) => c.notNull())
    .addColumn('actor_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('address', 'varchar(100)')
    .addColumn('action', 'varchar(100)', (c) => c.notNull())
    .addColumn('target', 'varchar(500)', (c) => c.notNull())
    // JSON, secrets redacted (core/audit.ts `redacted`); null where there was nothing.
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .execute();
  // An administrator's impersonation of an account is a session of that account made by the
  // administrator (users/impersonation-ops.ts): its administrator's user id, null for every other.
  await db.schema.alterTable('sessions').addColumn('impersonator', 'varchar(64)').execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_name', 'at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('impersonator').execute();
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('api_keys').execute();
}
