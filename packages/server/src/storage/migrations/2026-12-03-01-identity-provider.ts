import type { Kysely } from 'kysely';

// Roost as an OpenID Connect provider (issue 45, item 5; identity-provider/): what several
// processes must share. `idp_models` holds the library's models (oidc-provider's adapter,
// identity-provider/idp-adapter.ts): sessions, interactions, codes, grants, tokens, each a JSON
// payload under its kind and id. `idp_keys` the keys made once (the signing keys, the cookie
// keys), sealed with `users.secretsKey`. `idp_consents` what an account allowed a client.
// `idp_clients` the applications an administrator registered on the admin page.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idp_models')
    .addColumn('kind', 'varchar(40)', (c) => c.notNull())
    .addColumn('id', 'varchar(255)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    // The references the library looks models up or revokes them by.
    .addColumn('grant_id', 'varchar(255)')
    .addColumn('uid', 'varchar(255)')
    .addColumn('user_code', 'varchar(255)')
    // ms since the epoch; null: kept until destroyed.
    .addColumn('expires', 'bigint')
    .addColumn('consumed', 'bigint')
    .addPrimaryKeyConstraint('idp_models_pk', ['kind', 'id'])
    .execute();
  await db.schema.createIndex('idp_models_grant').on('idp_models').column('grant_id').execute();
  await db.schema.createIndex('idp_models_uid').on('idp_models').column('uid').execute();
  await db.schema.createIndex('idp_models_expires').on('idp_models').column('expires').execute();
  await db.schema
    .createTable('idp_keys')
    .addColumn('name', 'varchar(40)', (c) => c.primaryKey())
    // Sealed JSON (users/secret-box.ts).
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('idp_consents')
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(100)', (c) => c.notNull())
    // The OpenID scopes allowed, space-separated.
    .addColumn('scope', 'text', (c) => c.notNull())
    // JSON: each resource server's allowed scopes.
    .addColumn('resources', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idp_consents_pk', ['user_id', 'client_id'])
    .execute();
  await db.schema
    .createTable('idp_clients')
    .addColumn('client_id', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    // Sealed (users/secret-box.ts); null: a public client.
    .addColumn('secret', 'text')
    // JSON lists of URLs.
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'varchar(255)', (c) => c.notNull())
    .execute();
}

// Migrations are never run down (storage/migrations/index.ts `migrateTo`).
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idp_clients').execute();
  await db.schema.dropTable('idp_consents').execute();
  await db.schema.dropTable('idp_keys').execute();
  await db.schema.dropTable('idp_models').execute();
}
