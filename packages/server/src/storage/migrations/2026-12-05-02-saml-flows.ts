import type { Kysely } from 'kysely';

// SAML sign-ins under way (users/signin-methods/saml/): one row per AuthnRequest, kept by the hash
// of its RelayState (the browser's cookie holds the RelayState itself) with the request's id that
// the IdP's answer must name (`InResponseTo`), the connection, where to go afterwards and until
// when. The answer's checked profile is written into the row (`profile`, JSON) by the ACS, once;
// the browser's next step takes the row. Answers are remembered against replay in
// `throttle_counts` (the ID tokens' way), not here.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('saml_flows')
    .addColumn('relay_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('request_id', 'varchar(64)', (c) => c.unique())
    .addColumn('connection', 'varchar(32)', (c) => c.notNull())
    .addColumn('redirect', 'varchar(2000)', (c) => c.notNull())
    .addColumn('profile', 'text')
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saml_flows_expires').on('saml_flows').column('expires').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saml_flows').execute();
}
