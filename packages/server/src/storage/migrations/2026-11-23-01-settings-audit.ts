import type { Kysely } from 'kysely';

// The runtime settings keep when and by whom each value was set, for the settings page.
// SQLite adds one column per statement.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settings').addColumn('changed', 'bigint').execute();
  await db.schema.alterTable('settings').addColumn('changed_by', 'varchar(64)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settings').dropColumn('changed_by').execute();
  await db.schema.alterTable('settings').dropColumn('changed').execute();
}
