import type { Kysely } from 'kysely';

// Anonymous accounts (users/signin-methods/anonymous/): an account an app made without a form,
// marked until it is upgraded to a full one (a name and password, a provider, a passkey) in place,
// keeping its id. The index serves the cap's count and the sweep of those left unused.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('anonymous', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('users_anonymous').on('users').columns(['anonymous', 'created']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_anonymous').execute();
  await db.schema.alterTable('users').dropColumn('anonymous').execute();
}
