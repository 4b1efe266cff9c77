import type { Kysely } from 'kysely';

// Migrations take `Kysely<any>`: they describe the schema at their own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  // One row per file or directory of every file store. `path` is the whole path inside the
  // store ("docs/a.txt"), `parent` the path of its directory ("" at the root): a lookup is one
  // indexed read, a listing one range of the (store, parent, name) index. File contents live in
  // the blob store under `blob_id`; `hash` (SHA-256, base64url) is the ETag.
  await db.schema
    .createTable('file_entries')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('store', 'varchar(63)', (c) => c.notNull())
    .addColumn('path', 'varchar(1024)', (c) => c.notNull())
    .addColumn('parent', 'varchar(1024)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('type', 'varchar(1)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('mime', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('cache', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('blob_id', 'varchar(64)')
    .addColumn('hash', 'varchar(64)')
    .addColumn('owner', 'varchar(64)')
    .addColumn('ctime', 'bigint', (c) => c.notNull())
    .addColumn('mtime', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('file_entries_path', ['store', 'path'])
    .execute();
  await db.schema.createIndex('file_entries_parent').on('file_entries').columns(['store', 'parent', 'name']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('file_entries').execute();
}
