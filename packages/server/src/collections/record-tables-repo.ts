import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Dialect } from '../storage/database.js';
import { recordTable } from './collection-fields.js';
import type { RecordRow } from './collection-tables-schema.js';

/**
 * The record tables themselves (`records_<name>`) and their indexes: what a collection's making
 * and its schema changes ask of the database besides records (collection-definitions.ts,
 * record-indexes.ts). The records' own queries are in records-repo.ts, whose repository has these
 * members too. On PostgreSQL the system columns sort by code point (`COLLATE "C"`), as SQLite's
 * do, so that a page's order and its cursors are the same on both (query/).
 */

type RecordDb = Kysely<Record<string, RecordRow>>;

/** An index of a record table: its name, and the SQL expressions it holds (record-indexes.ts). */
export interface IndexSpec {
  name: string;
  unique: boolean;
  expressions: readonly RawBuilder<unknown>[];
}

export interface RecordTables {
  createTable(collection: string): Promise<void>;
  indexNames(collection: string): Promise<string[]>;
  createIndex(collection: string, index: IndexSpec): Promise<void>;
  dropIndex(name: string): Promise<void>;
}

export function recordTables(db: RecordDb, dialect: Dialect): RecordTables {
  const text = dialect === 'postgres' ? sql`text COLLATE "C"` : sql`text`;
  return {
    async createTable(collection) {
      const name = recordTable(collection);
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(name)} (
        id ${text} PRIMARY KEY NOT NULL,
        owner ${text},
        created ${text} NOT NULL,
        updated ${text} NOT NULL,
        data ${dialect === 'postgres' ? sql`jsonb` : sql`text`} NOT NULL
      )`.execute(db);
      // The default order (newest first) and the owner rule (`owner = @request.auth.id`) read these.
      const index = (suffix: string, columns: string[]) => {
        const list = sql.join(columns.map((c) => sql.ref(c)));
        return sql`CREATE INDEX IF NOT EXISTS ${sql.id(`${name}_${suffix}`)} ON ${sql.table(name)} (${list})`.execute(
          db,
        );
      };
      await index('created', ['created', 'id']);
      await index('owner', ['owner', 'created', 'id']);
    },
    async indexNames(collection) {
      const name = recordTable(collection);
      const rows =
        dialect === 'postgres'
          ? await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = ${name}`.execute(db)
          : await sql<{
              name: string;
            }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ${name}`.execute(db);
      return rows.rows.map((row) => row.name);
    },
    async createIndex(collection, index) {
      const unique = index.unique ? sql`UNIQUE ` : sql``;
      const on = sql.table(recordTable(collection));
      const expressions = sql.join(index.expressions);
      await sql`CREATE ${unique}INDEX IF NOT EXISTS ${sql.id(index.name)} ON ${on} (${expressions})`.execute(db);
    },
    async dropIndex(name) {
      await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
    },
  };
}

/**
 * Makes the record tables of a backup's rows (`records_<name>`: no migration makes them), before
 * a restore writes them (backups/backup-archive.ts). Their indexes follow when the collections open
 * (collection-definitions.ts `load`).
 */
export async function makeRecordTables(
  db: Kysely<unknown>,
  dialect: Dialect,
  tables: readonly string[],
): Promise<void> {
  const maker = recordTables(db as RecordDb, dialect);
  for (const table of tables) {
    const name = table.startsWith('records_') ? table.slice('records_'.length) : null;
    if (name !== null && /^[a-z][a-z0-9_]{0,40}$/.test(name)) await maker.createTable(name);
  }
}
