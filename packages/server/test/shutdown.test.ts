import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStream } from './helpers/event-stream.js';
import { ROOST_BIN, roostEnv } from './helpers/roost-command.js';
import { createMigratedPostgresDatabase } from './helpers/test-server.js';

interface Served {
  url: string;
  port: number;
  /** Sends SIGTERM; resolves with the exit code and the milliseconds from the signal to the exit. */
  stop(): Promise<{ code: number | null; ms: number }>;
  /** Whether the process has exited. */
  exited(): boolean;
}

/**
 * `roost serve` as a child process on a free port, in a directory (and on PostgreSQL a database)
 * of its own, with `config` as its roost.config.json.
 */
async function serve(config: Record<string, unknown>): Promise<Served> {
  const dir = await mkdtemp(join(tmpdir(), 'roost-shutdown-'));
  const pgDb = process.env.ROOST_TEST_DIALECT === 'postgres' ? await createMigratedPostgresDatabase() : null;
  const database: Record<string, string> = pgDb?.env ?? {};
  await writeFile(join(dir, 'roost.config.json'), JSON.stringify(config));
  const child = spawn(process.execPath, [ROOST_BIN, 'serve'], {
    cwd: dir,
    env: roostEnv({ ROOST_DATA_DIR: join(dir, 'data'), ROOST_PORT: '0', ROOST_LOG_LEVEL: 'info', ...database }),
  });
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /Roost listens on (http:\/\/[^\s"]+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  after(async () => {
    // Never left behind by a failing test.
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    await pgDb?.drop();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    url,
    port: Number(new URL(url).port),
    exited: () => child.exitCode !== null,
    async stop() {
      const started = Date.now();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return { code, ms: Date.now() - started };
    },
  };
}

/** A raw TCP connection to the server, with what it received and when it was closed. */
async function rawConnection(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

/**
 * Stopping `roost serve` (docs/operations.md, "Stopping / rolling restarts"): with
 * `shutdownDrainSeconds`, `/ready` answers 503 at once and everything else is still served, new
 * connections included, until the drain ends; then connections that carry no request
 * (a browser's preconnect, a client's kept-alive one) never hold the stop; a request still
 * running holds it for `shutdownGraceSeconds` at most; a request that arrives meanwhile gets
 * Roost's failure body.
 */
describe('serve: SIGTERM', () => {
  test('idle connections and an open live stream do not hold the stop', async () => {
    const served = await serve({});
    // One that never sent a request, one kept alive after its answer, a live stream.
    const silent = await rawConnection(served.port);
    const keptAlive = await rawConnection(served.port);
    keptAlive.socket.write('GET /health HTTP/1.1\r\nHost: roost\r\n\r\n');
    for (let waited = 0; !keptAlive.received().includes('\r\n\r\n') && waited < 5000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.match(keptAlive.received(), /^HTTP\/1\.1 200/);
    const stream = await openStream(served.url);
    assert.equal(stream.status, 200);

    const { code, ms } = await served.stop();
    assert.equal(code, 0);
    assert.ok(ms < 5000, `stopped after ${ms} ms`);
    await Promise.all([silent.closed, keptAlive.closed, stream.ended]);
    assert.deepEqual(
      stream.events.map((e) => [e.event, e.data.code]),
      [['close', 'shutting_down']],
    );
  });

  test("a running request holds the stop for the grace period; one arriving then gets Roost's body", async () => {
    const served = await serve({ shutdownGraceSeconds: 2 });
    // A request whose body never comes: it runs until the grace period ends.
    const busy = await rawConnection(served.port);
    busy.socket.write(
      'POST /users/api/ping HTTP/1.1\r\nHost: roost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{',
    );
    // A request whose headers are finished only once the stop has begun.
    const late = await rawConnection(served.port);
    late.socket.write('GET /api/realtime HTTP/1.1\r\nHost: roost\r\n');
    await new Promise((resolve) => setTimeout(resolve, 300));

    const stopped = served.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    late.socket.write('\r\n');
    await late.closed;
    const [head = '', body = ''] = late.received().split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 503/);
    assert.match(head, /\r\nconnection: close/i);
    const failure = JSON.parse(body) as { result: boolean; code: string; message: string };
    assert.equal(failure.result, false);
    assert.equal(failure.code, 'shutting_down');

    const { code, ms } = await stopped;
    assert.equal(code, 0);
    assert.ok(ms >= 1500 && ms < 6000, `stopped after ${ms} ms`);
    await busy.closed;
  });

  test('the drain: /ready answers 503 at once, new connections are still served, then the stop', async () => {
    const served = await serve({ shutdownDrainSeconds: 1.5, shutdownGraceSeconds: 1 });
    assert.equal((await fetch(`${served.url}/ready`)).status, 200);
    const stopped = served.stop();
    // The signal reaches the process at once; the first /ready after it is already 503.
    let ready = await fetch(`${served.url}/ready`);
    for (let tries = 0; ready.status === 200 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ready = await fetch(`${served.url}/ready`);
    }
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { code: string }).code, 'shutting_down');
    // Still served, on a connection of its own, half a second into the drain.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(served.exited(), false);
    const fresh = await fetch(`${served.url}/health`, { headers: { connection: 'close' } });
    assert.equal(fresh.status, 200);
    const { code, ms } = await stopped;
    assert.equal(code, 0);
    assert.ok(ms >= 1400 && ms < 8000, `stopped after ${ms} ms`);
  });
});
