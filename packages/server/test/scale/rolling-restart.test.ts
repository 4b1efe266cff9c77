import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/core/config.js';
import { haproxyInstalled, roostBackend, startHaproxy, type TestHaproxy } from '../helpers/haproxy.js';
import { serveRoost, type ServedRoost } from '../helpers/roost-command.js';
import { call, follow, newFollower } from '../helpers/stream-follower.js';
import {
  addAccountBeside,
  createPostgresDatabase,
  freePort,
  PASSWORD,
  type TestPostgresDatabase,
} from '../helpers/test-server.js';
import { eventually, onPostgres } from './scale-helpers.js';

/**
 * A rolling restart (docs/operations.md, "Stopping / rolling restarts"): three `roost serve`
 * processes on one PostgreSQL database behind HAProxy (checking `/ready`, `option redispatch`,
 * `retry-on` what a stopping process did not run), each stopped with SIGTERM and started again,
 * one after another, while clients read, write and follow live streams through HAProxy. No
 * request fails, every acknowledged write is read back, every stream comes back with its
 * `Last-Event-ID` and hears the writes made after the last restart.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a rolling restart of three processes behind HAProxy', {
  skip: !onPostgres
    ? 'runs in the PostgreSQL pass (SQLite has one process)'
    : !haproxyInstalled()
      ? 'haproxy is not installed'
      : false,
}, () => {
  let dir: string;
  let pgDb: TestPostgresDatabase;
  let proxy: TestHaproxy | undefined;
  let front: string;
  const ports: number[] = [];
  const servers: ServedRoost[] = [];
  let token: string;

  const start = (i: number) =>
    serveRoost(dir, { ROOST_DATA_DIR: join(dir, `data${i}`), ROOST_PORT: String(ports[i]), ROOST_LOG_LEVEL: 'info' });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-rolling-'));
    pgDb = await createPostgresDatabase();
    const input = {
      ...pgDb.settings,
      host: '127.0.0.1',
      logRequests: false,
      shutdownDrainSeconds: 1.5,
      shutdownGraceSeconds: 5,
      rateLimit: { max: 100_000 },
    };
    await writeFile(join(dir, 'roost.config.json'), JSON.stringify(input));
    // The account, made beside the servers as `roost user add` does (this also migrates).
    await addAccountBeside(parseConfig({ ...input, dataDir: join(dir, 'setup') }, dir), 'alice');
    for (let i = 0; i < 3; i++) ports.push(await freePort());
    servers.push(...(await Promise.all([0, 1, 2].map(start))));
    const frontPort = await freePort();
    front = `http://127.0.0.1:${frontPort}`;
    // Out within 2 × 150 ms of the drain's start (shutdownDrainSeconds above is 1.5); what a
    // stopping Roost did not run goes to another process, its 503 `shutting_down` too.
    proxy = await startHaproxy(dir, [
      ['frontend front', `  bind 127.0.0.1:${frontPort}`, '  default_backend roost'],
      roostBackend('roost', ports, { retryOn503: true, fallBack: false }),
    ]);
    const balancer = proxy;
    await eventually(
      async () =>
        Object.values(await balancer.states('roost').catch(() => ({}))).filter((s) => s === 'UP').length === 3,
      'HAProxy sees the three processes up',
      20_000,
    );
    const signedIn = await call(front, '/users/api/token', { identity: 'alice', password: PASSWORD });
    token = signedIn.body.token;
    assert.ok(token, JSON.stringify(signedIn.body));
  });

  after(async () => {
    await proxy?.stop();
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.exited));
    await pgDb?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('no failed request, no lost write, every stream back', { timeout: 120_000 }, async (t) => {
    let stopping = false;
    const done = () => stopping;
    const failures: string[] = [];
    const acknowledged: string[] = [];
    let requests = 0;

    const followers = [0, 1, 2].map(newFollower);
    const following = followers.map((f) => follow(front, token, f, done));
    await eventually(async () => followers.every((f) => f.opened === 1), 'the streams open');

    const writer = async (w: number) => {
      for (let n = 0; !stopping; n++) {
        const key = `w${w}-${n}`;
        requests++;
        try {
          const res = await call(front, '/data/api/setItem', { key, value: n }, token);
          if (res.status === 200 && res.body?.result === 1) acknowledged.push(key);
          else failures.push(`setItem ${key}: ${res.status} ${JSON.stringify(res.body)}`);
        } catch (err) {
          failures.push(`setItem ${key}: ${(err as Error).message}`);
        }
      }
    };
    const reader = async () => {
      while (!stopping) {
        const key = acknowledged.at(-1) ?? 'none';
        requests++;
        try {
          const res = await fetch(`${front}/data/api/getItem?key=${key}`, { headers: { 'x-auth-token': token } });
          await res.arrayBuffer();
          // 404: not written yet (the first moments); anything else than 200 or 404 fails.
          if (res.status !== 200 && !(res.status === 404 && key === 'none'))
            failures.push(`getItem ${key}: ${res.status}`);
        } catch (err) {
          failures.push(`getItem ${key}: ${(err as Error).message}`);
        }
      }
    };
    const load = [writer(0), writer(1), reader(), reader()];
    try {
      for (let i = 0; i < 3; i++) {
        await sleep(500);
        const old = servers[i] as ServedRoost;
        old.child.kill('SIGTERM');
        // The drain takes it out of HAProxy's pool while it still serves.
        await eventually(
          async () => (await (proxy as TestHaproxy).states('roost'))[`r${i}`]?.startsWith('DOWN') === true,
          `HAProxy marks r${i} down during the drain`,
        );
        assert.equal(old.child.exitCode, null, 'still running when marked down');
        assert.equal(await old.exited, 0, old.output());
        servers[i] = await start(i);
        await eventually(
          async () => (await (proxy as TestHaproxy).states('roost'))[`r${i}`] === 'UP',
          `HAProxy sees r${i} up again`,
          20_000,
        );
      }
      await sleep(500);
      // A last write after every restart: each stream hears it live.
      const last = await call(front, '/data/api/setItem', { key: 'after-all', value: 1 }, token);
      assert.equal(last.status, 200);
      await eventually(
        async () => followers.every((f) => f.keys.has('after-all')),
        'every stream hears the last write',
      );
    } finally {
      // Also when a step above failed: the clients stop, none keeps calling a proxy that is gone.
      stopping = true;
      await Promise.all(load);
      await Promise.all(following);
    }

    t.diagnostic(
      `${requests} requests, ${acknowledged.length} writes acknowledged; streams opened, resumed, reloaded: ` +
        followers.map((f) => `${f.opened}/${f.resumed}/${f.reloads}`).join(', '),
    );
    assert.deepEqual(failures, [], `${failures.length} of ${requests} requests failed`);
    assert.ok(acknowledged.length > 30, `only ${acknowledged.length} writes`);
    for (const f of followers) {
      assert.deepEqual(f.failures, []);
      // Each stream was on a process that stopped at least once, was told so, and came back resuming.
      assert.ok(f.closes.length >= 1 && f.closes.every((code) => code === 'shutting_down'), JSON.stringify(f.closes));
      assert.equal(f.resumed, f.opened - 1);
      assert.ok(f.resumed >= 1);
    }
    // Every acknowledged write is there, read back through HAProxy in batches.
    for (let i = 0; i < acknowledged.length; i += 100) {
      const keys = acknowledged.slice(i, i + 100);
      const res = await call(front, '/data/api/getItem', { key: keys }, token);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const found = new Set((res.body.items as Array<{ key: string }>).map((item) => item.key));
      assert.deepEqual(
        keys.filter((key) => !found.has(key)),
        [],
      );
    }
  });
});
