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
}

// Migrations are never run down (storage/migrations/index.ts `migrateTo`).
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('signin_keys').execute();
}
