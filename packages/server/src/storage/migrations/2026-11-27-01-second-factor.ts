import { sql, type Kysely } from 'kysely';

// Sessions a user can see and end (users/session-ops.ts), and the second factor
// (users/second-factor-ops.ts): a session gets a public id (the first 16 characters of its
// token's hash: the hash itself stays the key, and no token can be made from it), how it was
// signed into, the device and address it came from, and when it was last used. TOTP secrets,
// one per account, and recovery codes (argon2id hashes, each used once) get tables of their own.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('id', 'varchar(32)').execute();
  await db.schema
    .alterTable('sessions')
    .addColumn('method', 'varchar(32)', (c) => c.notNull().defaultTo('password'))
    .execute();
  await db.schema.alterTable('sessions').addColumn('device', 'varchar(200)').execute();
  await db.schema.alterTable('sessions').addColumn('address', 'varchar(64)').execute();
  await db.schema.alterTable('sessions').addColumn('last_used', 'bigint').execute();
  await db.updateTable('sessions').set({ id: sql`substr(token_hash, 1, 16)`, last_used: sql`created` }).execute();
  await db.schema.createIndex('sessions_id').on('sessions').column('id').unique().execute();

  await db.schema
    .createTable('totp_factors')
    .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret', 'varchar(200)', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('confirmed', 'bigint')
    .addColumn('last_step', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'varchar(200)', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.dropTable('totp_factors').execute();
  await db.schema.dropIndex('sessions_id').execute();
  for (const column of ['last_used', 'address', 'device', 'method', 'id'])
    await db.schema.alterTable('sessions').dropColumn(column).execute();
}
