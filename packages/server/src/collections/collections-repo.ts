import type { Kysely } from 'kysely';
import type { CollectionTables, CollectionsTable } from './collection-tables-schema.js';

/**
 * The collections and their schemas' history (collection-tables-schema.ts): the only file of
 * the kind with queries on those two tables (made by storage/migrations/2026-12-01-01-collections.ts,
 * with the built-in kinds' other migrations, which backups and restores read).
 */

export interface CollectionsRepo {
  all(): Promise<CollectionsTable[]>;
  one(name: string): Promise<CollectionsTable | undefined>;
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
    one: (name) => db.selectFrom('collections').selectAll().where('name', '=', name).executeTakeFirst(),
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
