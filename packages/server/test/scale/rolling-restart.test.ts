import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/core/config.js';
import { openStream, type OpenStream } from '../helpers/event-stream.js';
import { serveRoost, type ServedRoost } from '../helpers/roost-command.js';
import {
  addAccountBeside,
  createPostgresDatabase,
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
const haproxy = (() => {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP port free at this moment (the restarted process must come back on its own). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** HAProxy's view of each server of `roost`, from its stats socket: `{ r0: 'UP', r1: 'DOWN', ... }`. */
async function serverStates(socketPath: string): Promise<Record<string, string>> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(socketPath);
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.write('show stat\n');
  });
  const states: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const [proxy, server, ...rest] = line.split(',');
    // `status` is the 18th column of `show stat` (HAProxy's management guide, 9.1).
    if (proxy === 'roost' && server?.startsWith('r')) states[server] = rest[15] ?? '';
  }
  return states;
}

function haproxyConfig(front: number, ports: number[], statsSocket: string): string {
  return [
    'global',
    `  stats socket ${statsSocket} level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout check 2s',
    'frontend front',
    `  bind 127.0.0.1:${front}`,
    '  default_backend roost',
    'backend roost',
    '  option httpchk GET /ready',
    // Out within 2 × 150 ms of the drain's start (shutdownDrainSeconds below is 1.5).
    '  default-server check inter 150ms fall 2 rise 1',
    '  option redispatch 1',
    '  retries 3',
    // What a stopping Roost did not run: a refused connection, one closed before it read the
    // request, its 503 `shutting_down` (http/shutdown.ts).
    '  retry-on conn-failure empty-response 503',
    ...ports.map((port, i) => `  server r${i} 127.0.0.1:${port}`),
    '',
  ].join('\n');
}

/** A client of a live stream through HAProxy that comes back, as EventSource does, with the last id it saw. */
interface Follower {
  lastId: string | undefined;
  opened: number;
  /** Opens sent with a `Last-Event-ID`. */
  resumed: number;
  closes: string[];
  reloads: number;
  keys: Set<string>;
  failures: string[];
}

async function follow(url: string, token: string, follower: Follower, done: () => boolean): Promise<void> {
  while (!done()) {
    let stream: OpenStream;
    try {
      stream = await openStream(url, {
        token,
        topics: ['items/data'],
        ...(follower.lastId ? { lastEventId: follower.lastId } : {}),
      });
    } catch (err) {
      follower.failures.push(`open: ${(err as Error).message}`);
      await sleep(100);
      continue;
    }
    if (stream.status !== 200) {
      follower.failures.push(`open: ${stream.status} ${JSON.stringify(stream.failure)}`);
      await sleep(100);
      continue;
    }
    if (follower.lastId) follower.resumed++;
    follower.opened++;
    follower.lastId = stream.connectId ?? follower.lastId;
    let ended = false;
    void stream.ended.then(() => (ended = true));
    for (;;) {
      let event: Awaited<ReturnType<OpenStream['next']>>;
      try {
        event = await stream.next(undefined, 200);
      } catch {
        if (ended) break;
        if (done()) {
          stream.close();
          await stream.ended;
          break;
        }
        continue;
      }
      if (event.id) follower.lastId = event.id;
      if (event.event === 'close') follower.closes.push(String(event.data.code));
      else if (event.event === 'reload') follower.reloads++;
      else if (typeof event.data?.key === 'string') follower.keys.add(event.data.key);
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: whatever the server answered; the test reads the members it checks
async function call(url: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('a rolling restart of three processes behind HAProxy', {
  skip: !onPostgres
    ? 'runs in the PostgreSQL pass (SQLite has one process)'
    : !haproxy
      ? 'haproxy is not installed'
      : false,
}, () => {
  let dir: string;
  let pgDb: TestPostgresDatabase;
  let proxy: ChildProcess;
  let proxyExited: Promise<unknown>;
  let front: string;
  let statsSocket: string;
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
    statsSocket = join(dir, 'haproxy.sock');
    await writeFile(join(dir, 'haproxy.cfg'), haproxyConfig(frontPort, ports, statsSocket));
    proxy = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
    proxyExited = new Promise((resolve) => proxy.once('exit', resolve));
    await eventually(
      async () =>
        Object.values(await serverStates(statsSocket).catch(() => ({}))).filter((s) => s === 'UP').length === 3,
      'HAProxy sees the three processes up',
      20_000,
    );
    const signedIn = await call(front, '/users/api/token', { identity: 'alice', password: PASSWORD });
    token = signedIn.body.token;
    assert.ok(token, JSON.stringify(signedIn.body));
  });

  after(async () => {
    proxy?.kill('SIGTERM');
    await proxyExited;
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

    const followers: Follower[] = [0, 1, 2].map(() => ({
      lastId: undefined,
      opened: 0,
      resumed: 0,
      closes: [],
      reloads: 0,
      keys: new Set<string>(),
      failures: [],
    }));
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
          async () => (await serverStates(statsSocket))[`r${i}`]?.startsWith('DOWN') === true,
          `HAProxy marks r${i} down during the drain`,
        );
        assert.equal(old.child.exitCode, null, 'still running when marked down');
        assert.equal(await old.exited, 0, old.output());
        servers[i] = await start(i);
        await eventually(
          async () => (await serverStates(statsSocket))[`r${i}`] === 'UP',
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
