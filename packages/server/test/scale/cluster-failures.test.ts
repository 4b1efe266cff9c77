import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import { openPostgresChangeFeed } from '../../src/storage/change-feed.js';
import { openDatabase, postgres } from '../../src/storage/database.js';
import type { Database } from '../../src/storage/schema.js';
import { ds } from '../helpers/datastore.js';
import { startSlowLink } from '../helpers/slow-link.js';
import {
  createPostgresDatabase,
  startServer,
  type TestPostgresDatabase,
  type TestServer,
} from '../helpers/test-server.js';
import { eventually, onPostgres } from './scale-helpers.js';

interface Counters {
  counters: { id: string; n: number };
}

/**
 * The failures a PostgreSQL cluster has (issue 44, item 2; docs/scaling.md, "When the database
 * fails"), made on purpose on the test server (and through PgBouncer in pass 5): a transaction
 * that PostgreSQL undid runs again whole; a read whose connection was cut runs again; a write
 * whose outcome is unknown, or a failure that outlasts the retries, is answered 503
 * `database_unavailable` with Retry-After, and nothing is applied in half.
 */
describe('failures of the database cluster', { skip: onPostgres ? false : 'PostgreSQL only' }, () => {
  let database: TestPostgresDatabase;
  let dataDir: string;
  /** A connection of the test's own, straight to the server: locks, terminations, settings. */
  let admin: pg.Client;
  /** Roost's own Kysely over the pooled URL (storage/pg-connections.ts), on a table of the test's. */
  let db: Kysely<Counters>;
  /** The same, as Roost's storage takes it. */
  let roostDb: Kysely<Database>;

  before(async () => {
    database = await createPostgresDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'roost-cluster-'));
    admin = new (postgres().Client)({ connectionString: database.directUrl });
    await admin.connect();
    await admin.query('create table counters (id text primary key, n int not null)');
    await admin.query(`insert into counters values ('a', 0), ('b', 0)`);
    roostDb = openDatabase({ ...database.settings, dataDir }).db;
    db = roostDb as unknown as Kysely<Counters>;
  });
  after(async () => {
    await db?.destroy();
    await admin?.end();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('two serializable transactions that conflict: the one PostgreSQL undid runs again, both count', async () => {
    let runs = 0;
    let arrived = 0;
    let release: () => void = () => {};
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    const addOne = () =>
      db
        .transaction()
        .setIsolationLevel('serializable')
        .execute(async (trx) => {
          runs++;
          const { n } = await trx.selectFrom('counters').select('n').where('id', '=', 'a').executeTakeFirstOrThrow();
          // Both read before either writes (the first run of each): a read-write conflict.
          if (++arrived <= 2) {
            if (arrived === 2) release();
            await bothRead;
          }
          await trx
            .updateTable('counters')
            .set({ n: n + 1 })
            .where('id', '=', 'a')
            .execute();
        });
    await Promise.all([addOne(), addOne()]);
    const { rows } = await admin.query<{ n: number }>(`select n from counters where id = 'a'`);
    assert.equal(rows[0]?.n, 2, 'each transaction counted once');
    assert.equal(runs, 3, 'one of them ran again');
  });

  test('a deadlock made on purpose: the transaction PostgreSQL chose runs again, both apply', async () => {
    let runs = 0;
    let locked = 0;
    let release: () => void = () => {};
    const bothLocked = new Promise<void>((resolve) => (release = resolve));
    const both = (first: string, second: string) =>
      db.transaction().execute(async (trx) => {
        runs++;
        // Found in a fraction of a second (PostgreSQL's default is one): SET LOCAL ends with the transaction.
        await sql`set local deadlock_timeout = '100ms'`.execute(trx);
        await trx
          .updateTable('counters')
          .set((eb) => ({ n: eb('n', '+', 1) }))
          .where('id', '=', first)
          .execute();
        if (++locked <= 2) {
          if (locked === 2) release();
          await bothLocked;
        }
        await trx
          .updateTable('counters')
          .set((eb) => ({ n: eb('n', '+', 1) }))
          .where('id', '=', second)
          .execute();
      });
    await admin.query('update counters set n = 0');
    await Promise.all([both('a', 'b'), both('b', 'a')]);
    const { rows } = await admin.query<{ id: string; n: number }>('select id, n from counters order by id');
    assert.deepEqual(
      rows.map((r) => [r.id, r.n]),
      [
        ['a', 2],
        ['b', 2],
      ],
    );
    assert.equal(runs, 3, 'the deadlock victim ran again');
  });

  test('a connection terminated inside a transaction: nothing of it stays, and it runs again whole', async () => {
    await admin.query('update counters set n = 0');
    let runs = 0;
    await db.transaction().execute(async (trx) => {
      runs++;
      await trx
        .updateTable('counters')
        .set((eb) => ({ n: eb('n', '+', 1) }))
        .where('id', '=', 'a')
        .execute();
      if (runs === 1) {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
      }
      await trx
        .updateTable('counters')
        .set((eb) => ({ n: eb('n', '+', 1) }))
        .where('id', '=', 'b')
        .execute();
    });
    const { rows } = await admin.query<{ n: number }>('select n from counters order by id');
    assert.deepEqual(
      rows.map((r) => r.n),
      [1, 1],
      'the first run undone, the second applied',
    );
    assert.equal(runs, 2);
  });

  test("the change feed's connection gone silent (no reset): not live within seconds, back with the link", async () => {
    const link = await startSlowLink(new URL(database.directUrl).host, 0);
    const url = new URL(database.directUrl);
    url.host = link.address;
    const errors: Error[] = [];
    let forgotten = 0;
    const feed = await openPostgresChangeFeed(url.toString(), roostDb, (err) => errors.push(err));
    feed.subscribe((change) => {
      if (change === null) forgotten++;
    });
    try {
      assert.equal(feed.live, true);
      link.silence(true);
      const silent = Date.now();
      // storage/change-feed.ts: a look every 2 s, answered within 3 s, else the connection is given up.
      await eventually(async () => !feed.live, 'the feed knows its connection is deaf', 15_000);
      const noticedMs = Date.now() - silent;
      assert.ok(noticedMs < 10_000, `noticed after ${noticedMs} ms`);
      assert.match(errors[0]?.message ?? '', /did not answer/);
      link.silence(false);
      // Reconnected (an attempt made while silent times out after 5 s), and every cache told to forget.
      await eventually(async () => feed.live && forgotten === 1, 'the feed back, caches told to forget', 20_000);
      // It hears another connection's NOTIFY again.
      const heard = new Promise<void>((resolve) => feed.subscribe((change) => change?.key === 'after' && resolve()));
      await admin.query(`select pg_notify('roost_changes', $1)`, ['elsewhere\ntopic\nafter']);
      await heard;
    } finally {
      await feed.close();
      await link.close();
    }
  });

  describe('over HTTP', () => {
    let s: TestServer;
    let alice: string;
    before(async () => {
      s = await startServer({ ...database.settings, dataDir: join(dataDir, 'server') });
      alice = await s.createUser('alice');
      assert.equal((await ds(s, 'newItem', { key: 'k', value: 'before' }, { token: alice })).status, 200);
    });
    after(() => s?.close());

    /**
     * The pids of Roost's statements waiting for the test's lock (not autovacuum's; by pid alone: a
     * named statement waits in its Bind, before pg_stat_activity shows its text).
     */
    async function waiting(): Promise<number[]> {
      const { rows } = await admin.query<{ pid: number }>(
        `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
           and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      );
      return rows.map((r) => r.pid);
    }

    /** Hold every access to the items' table until `work` is done, then let it go. */
    async function whileItemsLocked(work: () => Promise<void>): Promise<void> {
      await admin.query('begin');
      await admin.query('lock table datastore_items in access exclusive mode');
      try {
        await work();
      } finally {
        await admin.query('rollback');
      }
    }

    test('a read whose connection is terminated mid-query is run again and answered', async () => {
      let answer: Awaited<ReturnType<typeof ds>> | undefined;
      await whileItemsLocked(async () => {
        const asked = ds(s, 'getItem', { key: 'k' }, { token: alice }).then((res) => (answer = res));
        await eventually(async () => (await waiting()).length === 1, "Roost's read waiting");
        const [first] = await waiting();
        await admin.query('select pg_terminate_backend($1)', [first]);
        // Run again on another connection, which waits for the lock in turn (or answered: asserted below).
        await eventually(async () => {
          const now = await waiting();
          return answer !== undefined || now.some((pid) => pid !== first);
        }, 'the read run again');
        assert.equal(answer, undefined, `answered before the lock was let go: ${JSON.stringify(answer?.body)}`);
        return void asked;
      });
      await eventually(async () => answer !== undefined, 'the answer');
      assert.equal(answer?.status, 200, JSON.stringify(answer?.body));
      assert.equal(answer?.body.value, 'before');
    });

    test('a write whose connection is terminated mid-statement: 503 database_unavailable, not applied', async () => {
      let answer: ReturnType<typeof ds> | undefined;
      await whileItemsLocked(async () => {
        answer = ds(s, 'setItem', { key: 'k', value: 'after' }, { token: alice });
        await eventually(async () => (await waiting()).length === 1, "Roost's write waiting");
        await admin.query('select pg_terminate_backend($1)', [(await waiting())[0]]);
      });
      const res = await answer;
      assert.equal(res?.status, 503);
      assert.equal(res?.body.code, 'database_unavailable');
      assert.equal(res?.headers.get('retry-after'), '1');
      // Not run again: it could have been applied before its connection went. Here it was not.
      const got = await ds(s, 'getItem', { key: 'k' }, { token: alice });
      assert.equal(got.body.value, 'before');
    });

    /**
     * Imitate a primary turned replica (`on`): new sessions are read-only, and the present ones end.
     * And its end (`off`): new sessions may write; the idle ones end (a pooler's server connections
     * to the old primary, which PgBouncer would hand out again), not one that runs a statement.
     */
    async function readOnly(on: boolean): Promise<void> {
      const name = new URL(database.directUrl).pathname.slice(1);
      await admin.query(`alter database ${name} set default_transaction_read_only = ${on ? 'on' : 'off'}`);
      const { rows: ended } = await admin.query<{ pid: number }>(
        // OFFSET 0 keeps the filter ahead of the termination (else the planner may end this connection too).
        `select pid, pg_terminate_backend(pid) from (select pid from pg_stat_activity
           where datname = $1 and pid <> pg_backend_pid() and ($2 or state = 'idle') offset 0) others`,
        [name, on],
      );
      // Over when the old connections are: gone on the server, and their end read by Roost's pool
      // (a write sent on one before is answered 503 as unknown; the test of a terminated write shows that).
      await eventually(async () => {
        const { rows } = await admin.query('select 1 from pg_stat_activity where pid = any($1::int[])', [
          ended.map((r) => r.pid),
        ]);
        return rows.length === 0;
      }, 'the old connections gone');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    test('a server turned read-only: writes are retried, then 503 database_unavailable; reads go on', async () => {
      await readOnly(true);
      try {
        const started = Date.now();
        const res = await ds(s, 'setItem', { key: 'k', value: 'refused' }, { token: alice });
        assert.equal(res.status, 503);
        assert.equal(res.body.code, 'database_unavailable');
        assert.equal(res.headers.get('retry-after'), '1');
        assert.ok(Date.now() - started >= 500, 'retried for a while first');
        const got = await ds(s, 'getItem', { key: 'k' }, { token: alice });
        assert.equal(got.status, 200);
        assert.equal(got.body.value, 'before');
      } finally {
        await readOnly(false);
      }
    });

    test('a write while the server is read-only succeeds once a writable one is back within the retries', async () => {
      await readOnly(true);
      const answer = ds(s, 'setItem', { key: 'k', value: 'promoted' }, { token: alice });
      // The failover's end, while the write is retried: connections made from now on may write.
      await new Promise((resolve) => setTimeout(resolve, 150));
      await readOnly(false);
      const res = await answer;
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal((await ds(s, 'getItem', { key: 'k' }, { token: alice })).body.value, 'promoted');
    });
  });
});
