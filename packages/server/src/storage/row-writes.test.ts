import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createPostgresDatabase } from '../../test/helpers/test-server.js';
import { RowWrites } from './row-writes.js';

const adminUrl = process.env.ROOST_TEST_DATABASE_URL;
const needsPostgres = adminUrl ? {} : { skip: 'needs ROOST_TEST_DATABASE_URL (a PostgreSQL server)' };
/** A database of this file's own on that server (PostgreSQL 15 lets no one create tables in `postgres`). */
let database: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
let url: string | undefined;
before(async () => {
  if (!adminUrl) return;
  database = await createPostgresDatabase(adminUrl);
  url = database.url;
});
after(() => database?.drop());

/**
 * `work` with a table of `columns` holding `rows` (SQL values), the pool, and a connection of its
 * own that `work` uses to hold rows' locks; the table goes afterwards.
 */
async function withTable(
  columns: string,
  rows: string,
  work: (table: string, pool: pg.Pool, locker: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const table = `row_writes_${Date.now()}`;
  await pool.query(`create table ${table} (${columns})`);
  await pool.query(`insert into ${table} values ${rows}`);
  const locker = await pool.connect();
  try {
    await work(table, pool, locker);
  } finally {
    locker.release();
    await pool.query(`drop table ${table}`);
    await pool.end();
  }
}

/** Resolves once `pool` shows a statement waiting for a lock: the write under way is held. */
async function someoneWaitsForALock(pool: pg.Pool): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await pool.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
    );
    if (rows[0]?.n) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no statement ever waited for the row');
}

test(
  'writes of one row that wait together run as one statement per kind, the last of each, in the order of those last',
  needsPostgres,
  () =>
    withTable(
      'k text primary key, v text, owner text',
      "('a', '0', 'alice'), ('b', '0', 'alice')",
      async (table, pool, locker) => {
        const statements: string[] = [];
        const writes = new RowWrites((query: pg.QueryConfig) => {
          statements.push(String(query.values?.[0]));
          return pool.query(query);
        });
        const anyOwner = (k: string, v: string) => ({
          text: `update ${table} set v = $1 where k = $2`,
          values: [v, k],
        });
        const own = (k: string, v: string, owner: string) => ({
          text: `update ${table} set v = $1 where k = $2 and owner = $3`,
          values: [v, k, owner],
        });
        const write = (query: pg.QueryConfig, k: string, kind: string) =>
          writes.write(query, k, kind).then((result) => result.rowCount);

        // Another transaction holds row a: the first write waits for it, the others wait for the first.
        await locker.query('begin');
        await locker.query(`select * from ${table} where k = 'a' for update`);
        const first = write(anyOwner('a', '1'), 'a', '');
        await someoneWaitsForALock(pool);
        const waited = [
          write(anyOwner('a', '2'), 'a', ''),
          write(own('a', '3', 'alice'), 'a', 'alice'),
          write(own('a', '4', 'bob'), 'a', 'bob'),
          write(anyOwner('a', '5'), 'a', ''),
        ];
        // Another row is not held up by row a.
        assert.equal(await write(anyOwner('b', '6'), 'b', ''), 1);
        await locker.query('commit');

        assert.deepEqual(await Promise.all([first, ...waited]), [1, 1, 1, 0, 1]);
        assert.deepEqual(statements, ['1', '6', '3', '4', '5']);
        const { rows } = await pool.query(`select k, v from ${table} order by k`);
        assert.deepEqual(rows, [
          { k: 'a', v: '5' },
          { k: 'b', v: '6' },
        ]);
      },
    ),
);

test("a statement's error reaches every write it stood for, and the row's next writes still run", needsPostgres, () =>
  withTable('k text primary key, n integer', "('a', 0)", async (table, pool, locker) => {
    const writes = new RowWrites((query: pg.QueryConfig) => pool.query(query));
    const set = (n: string) => writes.write({ text: `update ${table} set n = $1 where k = 'a'`, values: [n] }, 'a', '');

    await locker.query('begin');
    await locker.query(`select * from ${table} for update`);
    const first = set('1');
    await someoneWaitsForALock(pool);
    // The last of these is no number: the statement that stands for all three fails.
    const waited = [set('2'), set('3'), set('three')].map((p) =>
      p.then(
        () => 'ok',
        (e: { code?: string }) => e.code,
      ),
    );
    await locker.query('commit');

    assert.equal((await first).rowCount, 1);
    assert.deepEqual(await Promise.all(waited), ['22P02', '22P02', '22P02']);
    assert.equal((await set('7')).rowCount, 1);
    assert.deepEqual((await pool.query(`select n from ${table}`)).rows, [{ n: 7 }]);
  }),
);
