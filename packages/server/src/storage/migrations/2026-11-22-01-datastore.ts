import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Migrations take `Kysely<any>`: they describe the schema at their own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  // Keys and text values compare byte-wise on both databases (SQLite's default BINARY, the "C"
  // collation on PostgreSQL), so `list` and `keys` order the same everywhere.
  const text = sqlite ? sql`text` : sql`text collate "C"`;
  await db.schema
    .createTable('datastore_items')
    .addColumn('id', sqlite ? 'integer' : 'bigserial', (c) =>
      sqlite ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('store', 'varchar(63)', (c) => c.notNull())
    .addColumn('key', text, (c) => c.notNull())
    .addColumn('value', text, (c) => c.notNull())
    .addColumn('number', 'double precision')
    .addColumn('owner', 'varchar(64)')
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  // One key once per store: the index that makes concurrent newItem calls of one key have one winner.
  await db.schema.createIndex('datastore_items_key').on('datastore_items').columns(['store', 'key']).unique().execute();
  await db.schema
    .createIndex('datastore_items_owner')
    .on('datastore_items')
    .columns(['store', 'owner', 'key'])
    .execute();
  await db.schema.createIndex('datastore_items_updated').on('datastore_items').columns(['store', 'updated']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('datastore_items').execute();
}
