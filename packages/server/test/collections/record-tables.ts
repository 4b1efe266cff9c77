import { Kysely, PostgresDialect, type RawBuilder, SqliteDialect, sql } from 'kysely';
import { recordTable } from '../../src/collections/collection-fields.js';
import type { SqlDialect, StoredRecord } from '../../src/collections/query/index.js';
import { postgres } from '../../src/storage/database.js';
import { SQLite } from '../../src/storage/sqlite-driver.js';
import { createPostgresDatabase } from '../helpers/test-server.js';

/**
 * Record tables for the query tests, in the layout of docs/collection-queries.md ("Storage"): on
 * SQLite in memory, or (ROOST_TEST_DIALECT=postgres, pass 2 of scripts/test.mjs) in a database of
 * its own on the server of ROOST_TEST_DATABASE_URL, dropped at the end.
 */

interface RecordRow {
  id: string;
  owner: string | null;
  created: string;
  updated: string;
  data: string | Record<string, unknown>;
}

/** The tables the tests make; the query builder is typed by them. */
interface RecordTables {
  records_posts: RecordRow;
  records_authors: RecordRow;
  records_orgs: RecordRow;
}

export interface RecordsDatabase {
  readonly dialect: SqlDialect;
  readonly db: Kysely<RecordTables>;
  close(): Promise<void>;
}

/** The database of this pass: PostgreSQL when ROOST_TEST_DIALECT says so, else SQLite. */
export async function openRecordsDatabase(): Promise<RecordsDatabase> {
  if (process.env.ROOST_TEST_DIALECT !== 'postgres') {
    const db = new Kysely<RecordTables>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
    return { dialect: 'sqlite', db, close: () => db.destroy() };
  }
  const database = await createPostgresDatabase();
  const pool = new (postgres().Pool)({ connectionString: database.url, max: 2 });
  const db = new Kysely<RecordTables>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    db,
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}

/** A collection's record table, as the collections service makes it. */
export async function createRecordTable({ dialect, db }: RecordsDatabase, collection: string): Promise<void> {
  const table = sql.raw(`"${recordTable(collection)}"`);
  if (dialect === 'sqlite')
    await sql`CREATE TABLE ${table} (id TEXT PRIMARY KEY NOT NULL, owner TEXT, created TEXT NOT NULL,
      updated TEXT NOT NULL, data TEXT NOT NULL)`.execute(db);
  else
    await sql`CREATE TABLE ${table} (id text COLLATE "C" PRIMARY KEY, owner text COLLATE "C",
      created text COLLATE "C" NOT NULL, updated text COLLATE "C" NOT NULL, data jsonb NOT NULL)`.execute(db);
}

/** Replace the records of `collection` with `records`. */
export async function replaceRecords(
  { dialect, db }: RecordsDatabase,
  collection: string,
  records: readonly StoredRecord[],
): Promise<void> {
  const table = sql.raw(`"${recordTable(collection)}"`);
  await sql`DELETE FROM ${table}`.execute(db);
  for (let i = 0; i < records.length; i += 200) {
    const rows = records.slice(i, i + 200).map((r) => {
      const data =
        dialect === 'sqlite' ? sql`${JSON.stringify(r.data)}` : sql`CAST(${JSON.stringify(r.data)} AS jsonb)`;
      return sql`(${r.id}, ${r.owner}, ${r.created}, ${r.updated}, ${data})`;
    });
    if (rows.length > 0)
      await sql`INSERT INTO ${table} (id, owner, created, updated, data) VALUES ${sql.join(rows)}`.execute(db);
  }
}

/** The records of `collection` under alias `t` where `where` holds, in `orderBy`, at most `limit`. */
export async function selectRecords(
  { db }: RecordsDatabase,
  collection: string,
  where: RawBuilder<unknown>,
  orderBy: RawBuilder<unknown>,
  limit = 1_000_000,
): Promise<StoredRecord[]> {
  const table = sql.raw(`"${recordTable(collection)}"`);
  const { rows } = await sql<RecordRow>`SELECT id, owner, created, updated, data FROM ${table} AS "t"
    WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit}`.execute(db);
  return rows.map(asRecord);
}

/** A row as a record: `data` parsed where the driver gives text (SQLite). */
const asRecord = (row: RecordRow): StoredRecord => ({
  id: row.id,
  owner: row.owner,
  created: row.created,
  updated: row.updated,
  data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
});
