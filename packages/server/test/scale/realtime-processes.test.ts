import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStream, type OpenStream } from '../helpers/event-stream.js';
import { startServer, type TestServer } from '../helpers/test-server.js';
import { startBeside, type ChildRoost } from '../security/support/child-roost.js';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { onPostgres } from './scale-helpers.js';

/**
 * Live changes across processes (issue 21, "Several processes"): a subscriber on process B
 * hears of a write made on process A, through the change feed of their PostgreSQL database
 * (storage/change-feed.ts); B reads the item itself and checks its own subscriber's grants; a
 * token signed out on A closes its stream on B.
 */
describe('live changes across two processes on PostgreSQL', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  let a: TestServer;
  let b: ChildRoost;
  let dir: string;
  const opened: OpenStream[] = [];
  before(async () => {
    a = await startServer({ dataStores: { data: {}, private: {} }, fileStores: { files: {} } });
    dir = await mkdtemp(join(tmpdir(), 'roost-realtime-'));
    b = await startBeside(a, dir, { dataStores: { data: {}, private: {} }, fileStores: { files: {} } });
  });
  after(async () => {
    for (const stream of opened) stream.close();
    b?.process.kill('SIGTERM');
    await b?.exited;
    await a.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('a write on A reaches subscribers on B, each as its permissions allow', async () => {
    const alice = await a.createUser('alice');
    const bob = await a.createUser('bob');
    const admin = await a.adminToken();
    await a.request(
      '/private/api/setPermissions',
      { permissions: [{ permission: 'getItem', groups: ['sys:owner', 'admins'], action: 'replace' }] },
      { token: admin },
    );
    const onB = await openStream(b.url, { token: alice, topics: ['items/private', 'files/files/**'] });
    const bobOnB = await openStream(b.url, { token: bob, topics: ['items/private'] });
    opened.push(onB, bobOnB);
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
    const carol = await a.createUser('carol');
    const onB = await openStream(b.url, { token: carol, topics: ['account'] });
    opened.push(onB);
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
