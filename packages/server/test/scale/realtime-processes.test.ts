import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStream, streamsOf } from '../helpers/event-stream.js';
import { startServer, type TestServer } from '../helpers/test-server.js';
import { startBeside, type ChildRoost } from '../security/support/child-roost.js';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startSlowLink, type SlowLink } from '../helpers/slow-link.js';
import { eventually, onPostgres, useTwoProcesses } from './scale-helpers.js';

/**
 * Live changes across processes (issue 21, "Several processes"): a subscriber on process B
 * hears of a write made on process A, through the change feed of their PostgreSQL database
 * (storage/change-feed.ts); B reads the item itself and checks its own subscriber's grants; a
 * token signed out on A closes its stream on B.
 */
describe('live changes across two processes on PostgreSQL', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  // First, so that the streams are closed before the processes stop (hooks run in this order).
  const openOnB = streamsOf(() => two.b.url);
  const two = useTwoProcesses({ dataStores: { data: {}, private: {} }, fileStores: { files: {} } });

  test('a write on A reaches subscribers on B, each as its permissions allow', async () => {
    const { a } = two;
    const alice = await a.createUser('alice');
    const bob = await a.createUser('bob');
    const admin = await a.adminToken();
    await a.request(
      '/private/api/setPermissions',
      { permissions: [{ permission: 'getItem', groups: ['sys:owner', 'admins'], action: 'replace' }] },
      { token: admin },
    );
    const onB = await openOnB({ token: alice, topics: ['items/private', 'files/files/**'] });
    const bobOnB = await openOnB({ token: bob, topics: ['items/private'] });
    const written = await a.request('/private/api/newItem', { key: 'from-a', value: 'hello' }, { token: alice });
    assert.equal(written.status, 200);
    const heard = await onB.next('items/private');
    assert.deepEqual(
      [heard.data.event, heard.data.key, heard.data.item.value, heard.data.item.owner],
      ['item.created', 'from-a', 'hello', 'alice'],
    );
    await a.request('/files/api/@newItem', { name: 'n.txt', type: 'f', contents: 'x' }, { token: alice });
    assert.equal((await onB.next('files/files/**')).data.entry.name, 'n.txt');
    assert.deepEqual(await bobOnB.quiet(), []);
  });

  test('signing out on A ends the stream on B', async () => {
    const { a } = two;
    const carol = await a.createUser('carol');
    const onB = await openOnB({ token: carol, topics: ['account'] });
    await a.users('signout', {}, { token: carol });
    assert.equal((await onB.next('close', 3000)).data.code, 'signed_out');
  });
});

describe('live changes across two processes over Redis pub/sub', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  let redis: TestRedis;
  let a: TestServer;
  let b: ChildRoost;
  let dir: string;
  let spy: Redis;
  const heard: string[] = [];
  before(async () => {
    redis = await startRedis();
    spy = new Redis(redis.url);
    await spy.subscribe('roost:events');
    spy.on('message', (_channel: string, message: string) => heard.push(message));
    a = await startServer({ realtime: { redisUrl: redis.url } });
    dir = await mkdtemp(join(tmpdir(), 'roost-realtime-redis-'));
    b = await startBeside(a, dir, { realtime: { redisUrl: redis.url } });
  });
  after(async () => {
    b?.process.kill('SIGTERM');
    await b?.exited;
    await a?.close();
    spy?.disconnect();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a write on A reaches a subscriber on B, by way of Redis', async () => {
    const alice = await a.createUser('alice');
    const onB = await openStream(b.url, { token: alice, topics: ['items/data'] });
    try {
      await a.request('/data/api/newItem', { key: 'via-redis', value: 1 }, { token: alice });
      assert.equal((await onB.next('items/data')).data.key, 'via-redis');
      assert.ok(
        heard.some((m) => m.includes('via-redis')),
        'the event went through Redis',
      );
    } finally {
      onB.close();
    }
  });
});

// Not again through PgBouncer (pass 5, scripts/test-passes.mjs): there B's LISTEN connection is the direct
// URL, which the slow link does not carry (storage/pg-connections.ts), so the race of NOTIFY behind a slow
// database is not met again; the feed through PgBouncer is the first suite's, above.
const skipRights = !onPostgres
  ? 'runs in the PostgreSQL pass (SQLite has one process)'
  : process.env.ROOST_TEST_PGBOUNCER === '1'
    ? 'runs in the PostgreSQL pass without PgBouncer, where the slow link carries the change feed too'
    : false;

/**
 * Issue 46, part 1: an event must never be checked against rights older than the change that
 * caused it, whatever carries it between processes. Alice's stream is on B, whose database is
 * 40 ms away (a slow link, as a busy database is for its NOTIFY messages); the changes are made
 * on A. Over Redis the events used to overtake the cache invalidations, which came through
 * NOTIFY: B re-read Alice's old groups from its session cache and kept them. Now invalidations
 * travel on the events' own Redis connection, before the events they caused
 * (storage/redis-events.ts). Sessions are kept a minute, so only a message can make B forget.
 */
for (const via of ['Redis', 'the change feed'] as const) {
  describe(`a subscriber's rights follow changes made on another process, over ${via}, its database slow`, {
    skip: skipRights,
  }, () => {
    // Each round meets the race afresh behind the 40 ms link; 15 rounds keep the check while
    // halving what was the suite's longest job (118 s in CI with 30).
    const ROUNDS = 15;
    let redis: TestRedis | null = null;
    let link: SlowLink;
    let a: TestServer;
    let b: ChildRoost;
    let dir: string;
    let admin: string;
    before(async () => {
      redis = via === 'Redis' ? await startRedis() : null;
      const shared = {
        dataStores: { grp: {} },
        realtime: redis ? { redisUrl: redis.url } : {},
        users: { sessionCacheSeconds: 60 },
      };
      a = await startServer(shared);
      const database = new URL(a.roost.config.databaseUrl ?? '');
      link = await startSlowLink(`${database.hostname}:${database.port || '5432'}`, 40);
      database.host = link.address;
      dir = await mkdtemp(join(tmpdir(), 'roost-rights-'));
      b = await startBeside(a, dir, { ...shared, databaseUrl: database.toString() });
      admin = await a.adminToken();
    });
    after(async () => {
      b?.process.kill('SIGTERM');
      await b?.exited;
      await a?.close();
      await link?.close();
      await redis?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    test(`a group removed and added ${ROUNDS} times: every frame is one the subscriber may read then`, async () => {
      const alice = await a.createUser('alice', { groups: ['team'] });
      const bob = await a.createUser('bob');
      await a.request(
        '/grp/api/setPermissions',
        { permissions: [{ permission: 'getItem', groups: ['team', 'admins'], action: 'replace' }] },
        { token: admin },
      );
      const stream = await openStream(b.url, { token: alice, topics: ['items/grp', 'account'] });
      const groups = (list: string[]) =>
        a.users('setUser', { identity: 'alice', values: { groups: list } }, { token: admin });
      // Each group change is awaited on the stream (its `account` frame) before the next write:
      // the frames then have one right answer, whatever the link's delay.
      const next = async () => {
        const frame = await stream.next(undefined, 5000).catch(() => null);
        return frame ? `${frame.event} ${frame.data.key ?? frame.data.user?.groups?.join(',')}` : 'nothing';
      };
      const problems: string[] = [];
      try {
        for (let i = 0; i < ROUNDS; i++) {
          await groups([]);
          const removed = await next();
          await a.request('/grp/api/newItem', { key: `out-${i}`, value: 'team only' }, { token: bob });
          await groups(['team']);
          const added = await next();
          await a.request('/grp/api/newItem', { key: `in-${i}`, value: 'team again' }, { token: bob });
          const item = await next();
          // Checked against her own getItem on B at that moment too.
          const own = await fetch(`${b.url}/grp/api/getItem?key=in-${i}`, { headers: { 'x-auth-token': alice } });
          const got = [removed, added, item, own.status].join(' | ');
          if (got !== `account  | account team | items/grp in-${i} | 200`) problems.push(`round ${i}: ${got}`);
          if (!added.startsWith('account') || !item.startsWith('items')) await stream.quiet(300);
        }
        assert.deepEqual(problems, []);
      } finally {
        stream.close();
      }
    });

    test(`a profile changed ${ROUNDS} times: every account frame carries the profile just set`, async () => {
      const carol = await a.createUser('carol');
      const stream = await openStream(b.url, { token: carol, topics: ['account'] });
      const problems: string[] = [];
      // B keeps Carol's session with the profile shown last (a read that met no change is kept).
      const shownOnB = async () =>
        (
          (await (
            await fetch(`${b.url}/users/api/profile`, { method: 'POST', headers: { 'x-auth-token': carol } })
          ).json()) as { realname?: string }
        ).realname;
      try {
        for (let i = 0; i < ROUNDS; i++) {
          const before = i === 0 ? await shownOnB() : `Carol ${i - 1}`;
          await eventually(async () => (await shownOnB()) === before, 'B shows the profile set before');
          await shownOnB();
          await a.users('setUser', { identity: 'carol', values: { realname: `Carol ${i}` } }, { token: admin });
          const frame = await stream.next('account', 5000).catch(() => null);
          if (frame?.data.user?.realname !== `Carol ${i}`)
            problems.push(`round ${i}: ${frame ? frame.data.user?.realname : 'no frame'}`);
        }
        assert.deepEqual(problems, []);
      } finally {
        stream.close();
      }
    });
  });
}
