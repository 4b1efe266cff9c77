import type { Kysely } from 'kysely';

// Sign-in throttling (users/signin-throttle.ts): how many times an account has been locked in a
// row (each lock lasts longer, up to a maximum), and failed sign-ins per client address.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('lockouts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('signin_failures')
    .addColumn('address', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('signin_failures').execute();
  await db.schema.alterTable('users').dropColumn('lockouts').execute();
}
