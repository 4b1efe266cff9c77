import type { Kysely } from 'kysely';

// SCIM 2.0 provisioning (issue 45, item 1; scim/): what an identity provider keeps of the accounts
// and groups it provisions. `scim_users` one row per account it made (the account itself is a row
// of `users`, same id): the SCIM `userName` as given (a Roost name is made from it when it does not
// fit Roost's name rule: scim/scim-user-ops.ts), its `externalId`, the other attributes as JSON,
// the version its ETag shows, and the lease of a change of its groups. `scim_groups` one row per
// group: its `displayName` is the Roost group its members' accounts carry (users.groups), so
// permissions follow the membership.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scim_users')
    .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('user_name_key', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('external_id', 'varchar(255)')
    .addColumn('attributes', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    // Until when one process changes the account's groups (scim/scim-context.ts `changeGroups`); null: free.
    .addColumn('lease', 'bigint')
    .execute();
  await db.schema.createIndex('scim_users_external').on('scim_users').column('external_id').execute();
  await db.schema
    .createTable('scim_groups')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('display_name', 'varchar(100)', (c) => c.notNull())
    .addColumn('display_key', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('external_id', 'varchar(255)')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scim_groups_external').on('scim_groups').column('external_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scim_groups').execute();
  await db.schema.dropTable('scim_users').execute();
}
