import type { Kysely } from 'kysely';

// Sign-in providers (users/provider-ops.ts): which provider account (`provider`, its `subject`)
// belongs to which Roost account, and the flows under way: a flow is kept by the hash of its
// `state` until the provider sends the browser back, with the PKCE verifier and the nonce it
// must find there, where to go afterwards and, for a link, the account it links to.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provider_links')
    .addColumn('provider', 'varchar(32)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'varchar(254)')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('provider_links_pk', ['provider', 'subject'])
    .execute();
  await db.schema.createIndex('provider_links_user').on('provider_links').column('user_id').execute();

  await db.schema
    .createTable('provider_flows')
    .addColumn('state_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(32)', (c) => c.notNull())
    .addColumn('verifier', 'varchar(200)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(200)', (c) => c.notNull())
    .addColumn('redirect', 'varchar(2000)', (c) => c.notNull())
    .addColumn('link_user', 'varchar(64)')
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_flows').execute();
  await db.schema.dropTable('provider_links').execute();
}
