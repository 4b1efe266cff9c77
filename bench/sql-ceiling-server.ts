// The ceilings of the data store's operations: a bare Fastify route running the SQL Roost runs
// for them, against the same schema (Roost's own migrations, its triggers included) and the
// same 1000 items k0..k999 of one owner, with nothing else: no session, no permission, no input
// schema. On SQLite (the default) with better-sqlite3's statements prepared once; with
// `BENCH_POSTGRES=1` on a PostgreSQL database of its own, through one `pg` pool of Roost's size
// (storage/database.ts) with named (prepared) statements.
//
// - GET /list: a page of 50 from position 101 with its total, answered as Roost answers `list`.
//   Roost reads the total from the counts its triggers keep and starts the page from the key
//   it remembered where the page starts (datastore/page-repo.ts); so does this route.
// - GET /keys: the same for keys only.
// - GET /item: one item by key (Roost's getItem statement).
// - POST /item: one value replaced by key (Roost's setItem statement).
import Fastify from 'fastify';
import type { Kysely, SqliteStatement } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../packages/server/src/storage/database.js';
import { limitPlannedOnce, withRowsMadeHere } from '../packages/server/src/storage/sqlite-statements.js';
import { migrateToLatest } from '../packages/server/src/storage/migrations/index.js';
import { SQLite } from '../packages/server/src/storage/sqlite-driver.js';
import { createBenchDatabase } from './postgres.js';
import { onStop, tempDir } from './server-lifecycle.js';

const ITEMS = 1000;
const OWNER = 'bench-user-id';
const SIZE = 50;
const START = 101;

const COUNT = 'select sum("n") as "n" from "datastore_counts" where "store" = $1 and "owner" = $2';
const PAGE = 'select * from "datastore_items" where "store" = $1 and "key" >= $2 order by "key" asc limit $3 offset $4';
const KEYS =
  'select "key" from "datastore_items" where "store" = $1 and "key" >= $2 order by "key" asc limit $3 offset $4';
const GET = 'select * from "datastore_items" where "store" = $1 and "key" = $2';
const SET =
  'update "datastore_items" set "value" = $1, "number" = $2, "updated" = $3 where "store" = $4 and "key" = $5';

type Row = { id: number; key: string; value: string; number: number | null; owner: string | null; updated: number };
interface Sql {
  all<R>(name: string, text: string, values: unknown[]): R[] | Promise<R[]>;
  run(name: string, text: string, values: unknown[]): unknown;
}

const postgres = process.env.BENCH_POSTGRES === '1' ? await createBenchDatabase('ceiling') : null;
const dataDir = tempDir('roost-bench-sql-');
const { db } = openDatabase({ dataDir, ...(postgres ? { databaseUrl: postgres.url } : {}), durability: 'full' });
await migrateToLatest(db as Kysely<unknown>);
for (let start = 0; start < ITEMS; start += 100)
  await db
    .insertInto('datastore_items')
    .values(
      Array.from({ length: 100 }, (_, i) => ({
        store: 'data',
        key: `k${start + i}`,
        value: `value of item ${start + i}`,
        number: null,
        owner: OWNER,
        updated: Date.now(),
      })),
    )
    .execute();
await db.destroy();

function sqliteSql(): Sql {
  const sqlite = new SQLite(`${dataDir}/roost.db`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL'); // Roost's default durability (config.ts)
  const statements = new Map<string, SqliteStatement>();
  const prepared = (text: string) => {
    let statement = statements.get(text);
    if (!statement) {
      // Prepared and read as Roost's driver does (a LIMIT planned once, rows made in
      // JavaScript: storage/database.ts).
      statement = withRowsMadeHere(sqlite.prepare(limitPlannedOnce(text.replace(/\$\d+/g, '?'))));
      statements.set(text, statement);
    }
    return statement;
  };
  onStop(async () => {
    sqlite.close();
  });
  return {
    all: <R>(_name: string, text: string, values: unknown[]) => prepared(text).all(values) as R[],
    run: (_name: string, text: string, values: unknown[]) => prepared(text).run(values),
  };
}

function postgresSql(url: string): Sql {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  onStop(() => pool.end());
  return {
    all: async <R>(name: string, text: string, values: unknown[]) =>
      (await pool.query({ name, text, values })).rows as R[],
    run: (name: string, text: string, values: unknown[]) => pool.query({ name, text, values }),
  };
}

const sql = postgres ? postgresSql(postgres.url) : sqliteSql();
// Where the page starts, found once, as Roost remembers it.
const [first] = await sql.all<{ key: string }>('first', KEYS, ['data', '', 1, START - 1]);
const from = first!.key;

const total = async () => Number((await sql.all<{ n: number | string }>('count', COUNT, ['data', '']))[0]?.n ?? 0);
const itemView = (row: Row) => ({
  key: row.key,
  value: row.number ?? row.value,
  timestamp: row.updated / 1000,
  id: row.id,
  owner: 'bench',
});

const app = Fastify({ logger: false });
app.get('/list', async () => {
  const n = await total();
  const rows = await sql.all<Row>('page', PAGE, ['data', from, SIZE + 1, 0]);
  return { items: rows.slice(0, SIZE).map(itemView), start: START, size: SIZE, total: n };
});
app.get('/keys', async () => {
  const n = await total();
  const rows = await sql.all<{ key: string }>('keys', KEYS, ['data', from, SIZE + 1, 0]);
  return { keys: rows.slice(0, SIZE).map((r) => r.key), start: START, size: SIZE, total: n };
});
app.get('/item', async () => {
  const [row] = await sql.all<Row>('get', GET, ['data', 'k500']);
  return { ...itemView(row!), items: [itemView(row!)] };
});
app.post('/item', async () => {
  await sql.run('set', SET, ['a new value of item 502', null, Date.now(), 'data', 'k502']);
  return { result: 1 };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url, ...(postgres ? { database: postgres.name } : {}) });
