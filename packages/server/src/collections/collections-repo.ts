import type { Kysely, Migration } from 'kysely';
import type { CollectionTables, CollectionsTable } from './collection-tables-schema.js';

/**
 * The collections and their schemas' history (collection-tables-schema.ts): the only file of
 * the kind with queries on those two tables, and their migration.
 */

export const collectionMigrations: Readonly<Record<string, Migration>> = {
  // After the built-in kinds' migrations (storage/migrations/index.ts): they run in name order.
  '2026-12-01-01-collections': {
    async up(db: Kysely<unknown>) {
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
    },
  },
};

export interface CollectionsRepo {
  all(): Promise<CollectionsTable[]>;
  /** Saves a collection's definition and its history line, in the caller's transaction. */
  /** `on`: the caller's transaction (a Kysely handle of the same database, whatever its tables' type). */
  save(row: CollectionsTable, changedBy: string | null, on: unknown): Promise<void>;
  /** Removes a collection and its history, in the caller's transaction. */
  remove(name: string, on: unknown): Promise<void>;
  history(name: string): Promise<CollectionTables['collection_history'][]>;
}

export function collectionsRepo(db: Kysely<CollectionTables>): CollectionsRepo {
  return {
    all: () => db.selectFrom('collections').selectAll().orderBy('name').execute(),
    async save(row, changedBy, on) {
      const trx = on as Kysely<CollectionTables>;
      await trx
        .insertInto('collections')
        .values(row)
        .onConflict((oc) =>
          oc.column('name').doUpdateSet({
            schema: row.schema,
            rules: row.rules,
            version: row.version,
            updated: row.updated,
          }),
        )
        .execute();
      await trx
        .insertInto('collection_history')
        .values({
          name: row.name,
          version: row.version,
          schema: row.schema,
          rules: row.rules,
          changed_at: row.updated,
          changed_by: changedBy,
        })
        .onConflict((oc) => oc.columns(['name', 'version']).doNothing())
        .execute();
    },
    async remove(name, on) {
      const trx = on as Kysely<CollectionTables>;
      await trx.deleteFrom('collections').where('name', '=', name).execute();
      await trx.deleteFrom('collection_history').where('name', '=', name).execute();
    },
    history: (name) =>
      db.selectFrom('collection_history').selectAll().where('name', '=', name).orderBy('version').execute(),
  };
}
