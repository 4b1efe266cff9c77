import type { Kysely } from 'kysely';

// Migrations take `Kysely<any>`: they describe the schema at their own point in time, which
// the current `Database` type does not.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('email', 'varchar(320)')
    .addColumn('email_key', 'varchar(320)', (c) => c.unique())
    .addColumn('realname', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('notify', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('groups', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('pending', 'varchar(16)')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('activity', 'bigint')
    .addColumn('failed_signins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .execute();
  await db.schema.createIndex('users_state').on('users').columns(['state', 'pending']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
    .addColumn('payload', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['user_id', 'purpose']).execute();

  await db.schema
    .createTable('permissions')
    .addColumn('service', 'varchar(100)', (c) => c.notNull())
    .addColumn('permission', 'varchar(100)', (c) => c.notNull())
    .addColumn('groups', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('permissions_pk', ['service', 'permission'])
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['settings', 'permissions', 'user_tokens', 'sessions', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
