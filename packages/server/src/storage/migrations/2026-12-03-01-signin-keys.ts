import type { Kysely } from 'kysely';

// Keys the sign-in makes for itself, once, shared by every process (users/signin-key-repo.ts): the
// HMAC key that signs the proof-of-work challenges (users/proof-of-work.ts; issue 45, item 6). A
// restore without this table only makes the challenges given out before it fail.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signin_keys')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    // 32 random bytes, hex.
    .addColumn('value', 'varchar(128)', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  // The devices each account signed in from (users/device-repo.ts): a sign-in from one not seen
  // before is told to the account by mail, when `users.newDeviceMail` is on. A device is the
  // SHA-256 of the account's id and the client's User-Agent; addresses change too often to count.
  await db.schema
    .createTable('known_devices')
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('device_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('known_devices_pk', ['user_id', 'device_hash'])
    .execute();
}

// Migrations are never run down (storage/migrations/index.ts `migrateTo`).
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('known_devices').execute();
  await db.schema.dropTable('signin_keys').execute();
}
