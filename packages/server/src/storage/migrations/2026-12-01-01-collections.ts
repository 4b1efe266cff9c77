import type { Kysely } from 'kysely';

/**
 * The collections (collections/, issue 39) and their schemas' history. Each collection's
 * records get a table of their own when it is made (collections/records-repo.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('collections')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('schema', 'text', (c) => c.notNull())
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('collection_history')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('schema', 'text', (c) => c.notNull())
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addColumn('changed_by', 'text')
    .addPrimaryKeyConstraint('collection_history_pk', ['name', 'version'])
    .execute();
}
