import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPrimary, startReplica, type TestCluster, type TestReplica } from '../helpers/pg-replica.js';
import { ds } from '../helpers/datastore.js';
import { startServer, type TestServer } from '../helpers/test-server.js';
import { eventually, onPostgres } from './scale-helpers.js';

/**
 * Read replicas (issue 44, item 3; docs/scaling.md, "Read replicas"): a primary of our own and a
 * real streaming replica of it (test/helpers/pg-replica.ts), Roost reading from both. With the
 * replica's replay paused, another user's reads are stale (so they were the replica's) while the
 * writer's own reads are fresh; session checks see the primary; a replica that goes away costs
 * no request.
 */
const notes = {
  schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  rules: { list: '', view: '', create: '', update: null, delete: null },
};

describe('read replicas with read-your-writes', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (a replica is PostgreSQL)',
  timeout: 180_000,
}, () => {
  let primary: TestCluster;
  let replica: TestReplica;
  let s: TestServer;
  let alice: string;
  let bob: string;

  before(async () => {
    primary = await startPrimary();
    replica = await startReplica(primary);
    s = await startServer({
      databaseUrl: primary.url,
      databaseReplicaUrls: [replica.url],
      collections: { notes },
      metrics: { allow: ['127.0.0.1'] },
    });
    alice = await s.createUser('alice');
    bob = await s.createUser('bob');
    await replica.caughtUp(primary);
  });
  after(async () => {
    await s?.close();
    await replica?.stop('immediate');
    await primary?.stop('immediate');
  });

  /** The figure of a metric line for the replica, from /metrics. */
  async function replicaMetric(name: string): Promise<number | null> {
    const text = String((await s.request('/metrics', undefined, { method: 'GET' })).body);
    const line = text.split('\n').find((l) => l.startsWith(`${name}{replica="127.0.0.1:${replica.port}/postgres"}`));
    return line === undefined ? null : Number(line.split(' ').at(-1));
  }
  const listedKeys = async (token: string) =>
    ((await ds(s, 'list', { size: 500 }, { token })).body.items as Array<{ key: string }>).map((it) => it.key);
  const fileNames = async (token: string) =>
    ((await s.request('/files/api/@list', {}, { token })).body.items as Array<{ name: string }>).map((f) => f.name);
  const recordTitles = async (token: string) =>
    (
      (await s.request('/api/collections/notes/records', undefined, { method: 'GET', token })).body.items as Array<{
        title: string;
      }>
    ).map((r) => r.title);

  test('with replay paused, another user reads the replica (stale) and the writer reads its own writes', async () => {
    assert.equal((await ds(s, 'newItem', { key: 'before', value: 1 }, { token: alice })).status, 200);
    await replica.caughtUp(primary);
    await eventually(async () => (await listedKeys(bob)).includes('before'), 'bob lists the first item');
    const readsBefore = (await replicaMetric('roost_database_replica_reads_total')) ?? 0;
    assert.ok(readsBefore > 0, 'reads went to the replica');

    await replica.pauseReplay();
    try {
      assert.equal((await ds(s, 'newItem', { key: 'paused', value: 2 }, { token: alice })).status, 200);
      const made = await s.request('/api/collections/notes/records', { title: 'while paused' }, { token: alice });
      assert.equal(made.status, 201);
      const file = await s.request('/files/api/@newItem', { name: 'paused.txt', contents: 'x' }, { token: alice });
      assert.equal(file.body.result, 1);
      // Alice's own reads: fresh, at once (the primary, or a replica past her write).
      assert.equal((await ds(s, 'getItem', { key: 'paused' }, { token: alice })).body.value, 2);
      assert.ok((await listedKeys(alice)).includes('paused'));
      assert.ok((await recordTitles(alice)).includes('while paused'));
      assert.deepEqual(await fileNames(alice), ['paused.txt']);
      const own = await s.request(`/api/collections/notes/records/${made.body.id}`, undefined, {
        method: 'GET',
        token: alice,
      });
      assert.equal(own.status, 200);
      // Bob's: the replica's, which has not replayed them: stale, a while later still.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(await listedKeys(bob), ['before']);
      assert.equal((await ds(s, 'getItem', { key: 'paused' }, { token: bob })).status, 404);
      assert.deepEqual(await recordTitles(bob), []);
      assert.deepEqual(await fileNames(bob), []);
      const others = await s.request(`/api/collections/notes/records/${made.body.id}`, undefined, {
        method: 'GET',
        token: bob,
      });
      assert.equal(others.status, 404);
      // The lag shows in /metrics: WAL bytes not replayed, seconds since the last replayed commit.
      await eventually(
        async () => ((await replicaMetric('roost_database_replica_lag_bytes')) ?? 0) > 0,
        'lag in bytes while replay is paused',
      );
      await eventually(
        async () => ((await replicaMetric('roost_database_replica_lag_seconds')) ?? 0) > 0.2,
        'lag in seconds while replay is paused',
      );
      assert.equal(await replicaMetric('roost_database_replica_up'), 1);
    } finally {
      await replica.resumeReplay();
    }
    await eventually(async () => (await listedKeys(bob)).includes('paused'), 'bob sees the item once replayed');
    await eventually(
      async () => (await replicaMetric('roost_database_replica_lag_bytes')) === 0,
      'no lag once replayed and idle',
    );
  });

  test('a revoked token or permission is refused at once although the replica has not replayed it', async () => {
    const carol = await s.createUser('carol');
    await replica.caughtUp(primary);
    assert.equal((await ds(s, 'list', {}, { token: carol })).status, 200);
    await replica.pauseReplay();
    try {
      assert.equal((await s.users('signout', {}, { token: carol })).status, 200);
      for (const op of ['list', 'keys', 'getItem'] as const) {
        const refused = await ds(s, op, op === 'getItem' ? { key: 'before' } : {}, { token: carol });
        assert.equal(refused.status, 401, `${op} with the revoked token: ${JSON.stringify(refused.body)}`);
      }
      // A user disabled by an administrator: refused too, while the replica still holds the account as active.
      const dave = await s.createUser('dave');
      assert.equal((await ds(s, 'list', {}, { token: dave })).status, 200);
      const admin = await s.adminToken();
      assert.equal(
        (await s.users('setUser', { identity: 'dave', values: { active: false } }, { token: admin })).status,
        200,
      );
      assert.equal((await ds(s, 'list', {}, { token: dave })).status, 401);
      // A permission taken away: refused at once (the permission entries are the primary's).
      const listBy = (groups: string[]) =>
        ds(s, 'setPermissions', { permissions: [{ permission: 'list', groups, action: 'replace' }] }, { token: admin });
      assert.equal((await listBy(['admins'])).status, 200);
      try {
        assert.equal((await ds(s, 'list', {}, { token: bob })).status, 403);
      } finally {
        assert.equal((await listBy(['sys:authenticated'])).status, 200);
      }
    } finally {
      await replica.resumeReplay();
    }
  });

  test('read-your-writes: 1000 writes each read back at once, with the replica a second behind', async () => {
    // The replica applies each commit a second late: a read of one's own write from it would be stale.
    await replica.query("alter system set recovery_min_apply_delay = '1s'");
    await replica.query('select pg_reload_conf()');
    try {
      // Eight writers side by side, 125 rounds each: write, then read back at once (list and get).
      const names = ['erin', 'frank', 'gina', 'hank', 'ivy', 'jack', 'kate', 'liam'];
      const writers = await Promise.all(names.map((name) => s.createUser(name)));
      let staleForBob = 0;
      await Promise.all(
        writers.map(async (token, w) => {
          const key = `counter-${w}`;
          for (let i = 0; i < 125; i++) {
            const written = await ds(s, 'setItem', { key, value: i }, { token });
            assert.equal(written.status, 200);
            // Another user, at once: the replica's value, which lags (the control: the test can fail).
            if (i % 25 === 0 && (await ds(s, 'getItem', { key }, { token: bob })).body.value !== i) staleForBob++;
            const read = await (i % 2 === 0
              ? ds(s, 'getItem', { key }, { token })
              : ds(s, 'list', { key: [key] }, { token }).then((r) => ({ body: r.body.items[0] })));
            assert.equal(read.body.value, i, `writer ${w}'s read ${i} saw ${read.body.value}`);
          }
        }),
      );
      // The same reads by another user came from the lagging replica: the test could have failed.
      assert.ok(staleForBob > 0, 'bob read stale values from the replica');
    } finally {
      await replica.query('alter system reset recovery_min_apply_delay');
      await replica.query('select pg_reload_conf()');
    }
  });

  test('a replica that goes away: reads go to the primary, none fails; once back, it serves again', async () => {
    await replica.caughtUp(primary);
    let stop = false;
    const statuses: number[] = [];
    const readers = Array.from({ length: 4 }, async () => {
      while (!stop) statuses.push((await ds(s, 'list', {}, { token: bob })).status);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await replica.crash();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    stop = true;
    await Promise.all(readers);
    assert.ok(statuses.length > 20, `${statuses.length} reads`);
    assert.deepEqual(
      statuses.filter((status) => status !== 200),
      [],
    );
    assert.equal(await replicaMetric('roost_database_replica_up'), 0);
    assert.equal((await ds(s, 'getItem', { key: 'paused' }, { token: bob })).body.value, 2);

    await replica.startAgain();
    await eventually(async () => (await replicaMetric('roost_database_replica_up')) === 1, 'the replica in use again');
    const readsBack = (await replicaMetric('roost_database_replica_reads_total')) ?? 0;
    assert.equal((await ds(s, 'list', {}, { token: bob })).status, 200);
    assert.ok(((await replicaMetric('roost_database_replica_reads_total')) ?? 0) > readsBack, 'a read on the replica');
  });
});
