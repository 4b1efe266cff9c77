import type { Kysely } from 'kysely';

// Throttling (users/signin-throttle.ts, users/mail-limits.ts): how many times an account has been
// locked in a row (each lock lasts longer, up to a maximum), and counts per key and window:
// failed sign-ins per client address, mails per account and per recipient.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('lockouts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('throttle_counts')
    .addColumn('key', 'varchar(400)', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('throttle_counts').execute();
  await db.schema.alterTable('users').dropColumn('lockouts').execute();
}
