import type { Kysely } from 'kysely';

// Direct uploads to S3 (issue 41, item 2; filestore/direct-ops.ts): one row per presigned upload
// handed out, until a day after it expired. `id` is the token the client finishes it with (and
// the name of its staging object); `state` is pending, done (finished or refused: a token is
// used once) or expired. The sweep (filestore/direct-ops.ts `sweepDirect`) reads by `expires`.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('direct_uploads')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('store', 'varchar(63)', (c) => c.notNull())
    .addColumn('path', 'varchar(1024)', (c) => c.notNull())
    // The caller's user id; null for an anonymous caller (then the token alone finishes it).
    .addColumn('owner', 'varchar(64)')
    // What the client announced: the bytes and the media type.
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('mime', 'varchar(255)', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('direct_uploads_expires').on('direct_uploads').columns(['store', 'expires']).execute();
}

// Migrations are never run down (storage/migrations/index.ts `migrateTo`).
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('direct_uploads').execute();
}
