import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { parseConfig, type BlobStoreOptions } from '../../src/core/config.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { serveRoost, type ServedRoost } from '../helpers/roost-command.js';
import { s3Credentials, sharedS3 } from '../helpers/s3-server.js';
import {
  addAccountBeside,
  createPostgresDatabase,
  PASSWORD,
  type TestPostgresDatabase,
} from '../helpers/test-server.js';
import { eventually, onPostgres } from './scale-helpers.js';

type Process = ServedRoost;

/** `roost serve` as a child process of its own, configured by `cwd`'s roost.config.json; resolves once it listens. */
const serve = (cwd: string, dataDir: string): Promise<Process> =>
  serveRoost(cwd, { ROOST_DATA_DIR: dataDir, ROOST_PORT: '0', ROOST_LOG_LEVEL: 'info' });

// biome-ignore lint/suspicious/noExplicitAny: whatever the server answered; each test asserts the members it needs
async function call(url: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Two `roost serve` processes on one PostgreSQL database, one S3 bucket (s3rver) and one Redis:
 * the deployment docs/scaling.md describes, tested from the outside.
 */
describe('two Roost processes on one PostgreSQL database and one object store', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  let cwd: string;
  let pgDb: TestPostgresDatabase;
  let redis: TestRedis;
  let blobs: Extract<BlobStoreOptions, { kind: 's3' }>;
  let a: Process;
  let b: Process;
  let token: string;

  before(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'roost-two-'));
    [pgDb, redis, blobs] = await Promise.all([
      createPostgresDatabase(),
      startRedis(),
      sharedS3().then((s3) => s3.newBucket()),
    ]);
    const input = {
      ...pgDb.settings,
      host: '127.0.0.1',
      blobs,
      // A minute of session cache: a signout seen on the other process cannot be the cache ageing out.
      users: { sessionCacheSeconds: 60 },
      rateLimit: { max: 10_000, redisUrl: redis.url },
    };
    await writeFile(join(cwd, 'roost.config.json'), JSON.stringify(input));
    // An account made beside the servers, as `roost user add` does.
    await addAccountBeside(parseConfig({ ...input, dataDir: join(cwd, 'setup') }, cwd), 'alice');
    // Both start at once: their migrations meet on the migrator's lock.
    [a, b] = await Promise.all([serve(cwd, join(cwd, 'a')), serve(cwd, join(cwd, 'b'))]);
    token = (await call(a.url, '/users/api/token', { identity: 'alice', password: PASSWORD })).body.token as string;
  });
  after(async () => {
    for (const p of [a, b]) {
      if (p && p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
    await redis?.stop();
    await pgDb?.drop();
    await rm(cwd, { recursive: true, force: true });
  });

  test('a token from one process works on the other; a signout on one is seen by the other', async () => {
    assert.equal((await call(b.url, '/users/api/identity', {}, token)).status, 200);
    const other = (await call(b.url, '/users/api/token', { identity: 'alice', password: PASSWORD })).body
      .token as string;
    assert.equal((await call(a.url, '/users/api/identity', {}, other)).status, 200); // a keeps it now
    assert.equal((await call(b.url, '/users/api/signout', {}, other)).status, 200);
    await eventually(
      async () => (await call(a.url, '/users/api/identity', {}, other)).status === 401,
      'a refuses the token signed out on b',
    );
    assert.equal((await call(a.url, '/users/api/identity', {}, token)).status, 200, 'the other session lives on');
  });

  test('200 concurrent setItem calls spread over both processes lose nothing', async () => {
    const writes: Array<{ key: string; value: string; url: string }> = [];
    for (let i = 0; i < 150; i++) writes.push({ key: `k${i}`, value: `v${i}`, url: i % 2 ? a.url : b.url });
    // Five keys written ten times each, from both processes, created by whichever write comes first.
    for (let i = 0; i < 50; i++)
      writes.push({ key: `hot${i % 5}`, value: `hot${i % 5}-${i}`, url: i % 2 ? b.url : a.url });
    const results = await Promise.all(
      writes.map((w) => call(w.url, '/data/api/setItem', { key: w.key, value: w.value }, token)),
    );
    assert.deepEqual(
      results.filter((r) => r.status !== 200 || r.body.result !== 1),
      [],
      'every write succeeded',
    );

    for (const url of [a.url, b.url]) {
      const listed = await call(url, '/data/api/list', { size: 500 }, token);
      assert.equal(listed.body.total, 155);
      const values = new Map((listed.body.items as Array<{ key: string; value: string }>).map((i) => [i.key, i.value]));
      for (let i = 0; i < 150; i++) assert.equal(values.get(`k${i}`), `v${i}`);
      for (let h = 0; h < 5; h++) {
        const written = writes.filter((w) => w.key === `hot${h}`).map((w) => w.value);
        assert.ok(written.includes(values.get(`hot${h}`) ?? ''), `hot${h} holds one of its writes`);
      }
    }
    for (let h = 0; h < 5; h++) {
      const onA = await call(a.url, '/data/api/getItem', { key: `hot${h}` }, token);
      const onB = await call(b.url, '/data/api/getItem', { key: `hot${h}` }, token);
      assert.deepEqual(onA.body, onB.body, `both processes read the same final hot${h}`);
    }
  });

  test("a page one process remembers follows the other's new and removed items", async () => {
    const keys = async (url: string, start: number) =>
      (await call(url, '/data/api/keys', { prefix: 'pg', start, size: 3 }, token)).body as {
        keys: string[];
        total: number;
      };
    for (let i = 0; i < 9; i++) await call(b.url, '/data/api/newItem', { key: `pg${i}`, value: i }, token);
    // a walks the pages: it now remembers where the second and third start.
    for (const start of [1, 4, 7]) await keys(a.url, start);
    assert.deepEqual((await keys(a.url, 4)).keys, ['pg3', 'pg4', 'pg5']);
    // b adds a key before them (in a statement of its own), then removes one.
    assert.equal((await call(b.url, '/data/api/newItem', { key: 'pg0a', value: 0 }, token)).status, 200);
    await eventually(async () => (await keys(a.url, 4)).keys.join() === 'pg2,pg3,pg4', 'a sees the new key');
    assert.equal((await keys(a.url, 4)).total, 10);
    assert.equal((await call(b.url, '/data/api/removeItem', { key: 'pg1' }, token)).status, 200);
    await eventually(async () => (await keys(a.url, 7)).keys.join() === 'pg6,pg7,pg8', 'a sees the removal');
    assert.equal((await keys(a.url, 7)).total, 9);
  });

  test('killing a process (SIGKILL) in the middle of uploads leaves no broken file and no stray object', async () => {
    const old = 'the old, complete contents';
    assert.equal((await httpPut(a.url, '/files/doc.bin/@write', token, old)).status, 200);
    const s3 = new S3Client({
      endpoint: blobs.endpoint,
      region: blobs.region,
      forcePathStyle: true,
      credentials: s3Credentials(),
    });
    const objects = async () =>
      (await s3.send(new ListObjectsV2Command({ Bucket: blobs.bucket, Prefix: blobs.prefix }))).Contents?.length ?? 0;
    try {
      assert.equal(await objects(), 1);
      // Two uploads to b, a replacement and a new file, each killed after 12 MiB of 40 (two parts sent).
      const sent = [
        streamUntil(b.url, '/files/doc.bin/@write', token),
        streamUntil(b.url, '/files/new.bin/@write', token),
      ];
      await Promise.all(sent.map((s) => s.reached));
      b.child.kill('SIGKILL');
      await b.exited;
      await Promise.all(sent.map((s) => s.done));

      const doc = await fetch(`${a.url}/files/doc.bin`, { headers: { 'x-auth-token': token } });
      assert.equal(await doc.text(), old);
      assert.equal(doc.headers.get('etag'), `"${createHash('sha256').update(old).digest('base64url')}"`);
      assert.equal((await call(a.url, '/files/new.bin/@getItem', {}, token)).status, 404);
      const listed = await call(a.url, '/files/@list', {}, token);
      assert.deepEqual(
        (listed.body.items as Array<{ name: string }>).map((i) => i.name),
        ['doc.bin'],
      );
      assert.equal(await objects(), 1, 'no object of the killed uploads is in the bucket');
      // The survivor goes on: a new upload works.
      assert.equal((await httpPut(a.url, '/files/new.bin/@write', token, 'after the crash')).status, 200);
      assert.equal(
        await (await fetch(`${a.url}/files/new.bin`, { headers: { 'x-auth-token': token } })).text(),
        'after the crash',
      );
    } finally {
      s3.destroy();
    }
  });
});

function httpPut(url: string, path: string, token: string, body: string): Promise<{ status: number }> {
  return fetch(url + path, {
    method: 'PUT',
    headers: { 'x-auth-token': token, 'content-type': 'application/octet-stream' },
    body,
  }).then(async (r) => {
    await r.arrayBuffer();
    return { status: r.status };
  });
}

/**
 * A 40 MiB PUT that sends 12 MiB (more than two S3 parts of 5 MiB) and then waits: `reached`
 * resolves when those bytes are written, `done` when the connection ends (the server died).
 */
function streamUntil(url: string, path: string, token: string): { reached: Promise<void>; done: Promise<void> } {
  const target = new URL(url);
  const total = 40 * 1024 * 1024;
  const chunk = Buffer.alloc(256 * 1024, 7);
  let reachedResolve: () => void;
  const reached = new Promise<void>((r) => (reachedResolve = r));
  const done = new Promise<void>((resolve) => {
    const req = httpRequest({
      host: target.hostname,
      port: target.port,
      path,
      method: 'PUT',
      headers: { 'x-auth-token': token, 'content-type': 'application/octet-stream', 'content-length': String(total) },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    let sent = 0;
    const pump = () => {
      while (sent < 12 * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      // Written to the socket; give the server a moment to pass it on as parts.
      setTimeout(() => reachedResolve(), 300);
    };
    pump();
  });
  return { reached, done };
}
