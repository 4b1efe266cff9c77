import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { SQLite } from '../../src/storage/sqlite-driver.js';
import { parseConfig } from '../../src/core/config.js';
import { addAccountBeside, createMigratedPostgresDatabase, PASSWORD } from '../helpers/test-server.js';
import { startChild, writeConfig, type ChildRoost } from './support/child-roost.js';

/**
 * Crash safety: Roost runs as its own process and takes a stream of writes (items replaced
 * again and again, all-or-nothing batches, small files rewritten, large files streamed), then
 * is killed with SIGKILL in the middle of it, with an upload half sent. Started again on the
 * same data it must hold every acknowledged write with its exact contents, show nothing
 * half-written (an item's value or a file is one of the versions sent whole, a batch is all
 * there or not at all), and start cleanly: no error logged, the half upload's temporary file
 * gone. Twice, then a clean stop. On SQLite, and on PostgreSQL in the PostgreSQL pass.
 */

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

interface Answer {
  status: number;
  body: Buffer;
}

function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer | Readable,
): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body instanceof Readable) body.pipe(req);
    else req.end(body);
  });
}

const json = (a: Answer) => JSON.parse(a.body.toString('utf8')) as Record<string, unknown>;

/** The value of item `key` at `version`: its name and version first, then filler of a varying length. */
const itemValue = (key: string, version: number) => `${key}@${version}:${'v'.repeat((version * 7919) % 60_000)}`;

/** File contents as a stream of 64 KiB blocks, each naming the file, version and block (a mix-up shows). */
function fileBlocks(name: string, version: number, size: number): { stream: () => Readable; hash: string } {
  const block = (i: number) => {
    const b = Buffer.alloc(Math.min(65_536, size - i * 65_536), (i * 31 + version) & 0xff);
    b.write(`${name}@${version}#${i};`, 0, 'latin1');
    return b;
  };
  const count = Math.ceil(size / 65_536);
  const hash = createHash('sha256');
  for (let i = 0; i < count; i++) hash.update(block(i));
  return {
    hash: hash.digest('hex'),
    stream: () =>
      Readable.from(
        (function* () {
          for (let i = 0; i < count; i++) yield block(i);
        })(),
      ),
  };
}

/** What was sent and what was acknowledged, per item key or file name. */
class Ledger {
  readonly sent = new Map<string, Map<number, string>>();
  readonly acked = new Map<string, number>();
  readonly batches: Array<{ keys: string[]; acked: boolean }> = [];
  count = 0;

  send(name: string, version: number, fingerprint: string): void {
    const versions = this.sent.get(name) ?? new Map<number, string>();
    versions.set(version, fingerprint);
    this.sent.set(name, versions);
  }

  ack(name: string, version: number): void {
    this.acked.set(name, Math.max(version, this.acked.get(name) ?? 0));
    this.count++;
  }
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

async function driveWrites(
  server: ChildRoost,
  token: string,
  ledger: Ledger,
  round: number,
  stop: { now: boolean },
): Promise<void> {
  const auth = { 'x-auth-token': token };
  const versions = new Map<string, number>();
  const next = (name: string) => {
    const v = (versions.get(name) ?? 0) + 1;
    versions.set(name, v);
    return v;
  };
  // Each worker writes its own keys and files one after another, so for each name the
  // versions grow with time: after the crash the stored one is the last acknowledged or later.
  const items = async (w: number) => {
    for (let i = 0; !stop.now; i++) {
      const key = `r${round}-w${w}-k${i % 15}`;
      const version = next(key);
      const value = itemValue(key, version);
      ledger.send(key, version, sha(value));
      const res = await call(
        server.url,
        'POST',
        '/data/api/setItem',
        { ...auth, 'content-type': 'application/json' },
        JSON.stringify({ key, value }),
      );
      assert.equal(res.status, 200, res.body.toString());
      ledger.ack(key, version);
    }
  };
  const batches = async () => {
    for (let i = 0; !stop.now; i++) {
      const keys = Array.from({ length: 5 }, (_, j) => `r${round}-batch${i}-${j}`);
      const entry = { keys, acked: false };
      ledger.batches.push(entry);
      const res = await call(
        server.url,
        'POST',
        '/data/api/newItem',
        { ...auth, 'content-type': 'application/json' },
        JSON.stringify({ items: keys.map((key) => ({ key, value: itemValue(key, 1) })) }),
      );
      assert.equal(res.status, 200, res.body.toString());
      entry.acked = true;
      ledger.count++;
    }
  };
  const files = async (prefix: string, names: number, size: (i: number) => number) => {
    for (let i = 0; !stop.now; i++) {
      const name = `r${round}-${prefix}${i % names}.bin`;
      const version = next(name);
      const contents = fileBlocks(name, version, size(i));
      ledger.send(name, version, contents.hash);
      const res = await call(
        server.url,
        'PUT',
        `/files/crash/${name}/@write`,
        { ...auth, 'content-type': 'application/octet-stream' },
        contents.stream(),
      );
      assert.equal(res.status, 200, res.body.toString());
      ledger.ack(name, version);
    }
  };
  const workers = [
    items(0),
    items(1),
    items(2),
    batches(),
    files('small', 6, (i) => 1_000 + ((i * 4_099) % 30_000)),
    files('large', 1_000, (i) => 1_000_000 + ((i * 777_777) % 3_000_000)),
  ];
  // A failed request after the kill is expected; before it, a failure fails the test.
  await Promise.all(
    workers.map((w) =>
      w.catch((err: unknown) => {
        if (!stop.now) throw err;
      }),
    ),
  );
}

async function verify(server: ChildRoost, token: string, ledger: Ledger): Promise<void> {
  const auth = { 'x-auth-token': token };
  for (const [name, versions] of ledger.sent) {
    const acked = ledger.acked.get(name) ?? 0;
    const isFile = name.endsWith('.bin');
    const res = isFile
      ? await call(server.url, 'GET', `/files/crash/${name}`, auth)
      : await call(
          server.url,
          'POST',
          '/data/api/getItem',
          { ...auth, 'content-type': 'application/json' },
          JSON.stringify({ key: name }),
        );
    if (res.status === 404) {
      assert.equal(acked, 0, `${name}: version ${acked} was acknowledged, and is gone`);
      continue;
    }
    assert.equal(res.status, 200, `${name}: ${res.body.toString().slice(0, 200)}`);
    const fingerprint = isFile ? sha(res.body) : sha(String(json(res).value));
    const version = [...versions].find(([, f]) => f === fingerprint)?.[0];
    assert.ok(
      version !== undefined,
      `${name}: the stored ${isFile ? 'file' : 'value'} is none of the versions sent (torn or mixed)`,
    );
    assert.ok(version >= acked, `${name}: holds version ${version}, but ${acked} was acknowledged`);
  }
  for (const batch of ledger.batches) {
    const res = await call(
      server.url,
      'POST',
      '/data/api/getItem',
      { ...auth, 'content-type': 'application/json' },
      JSON.stringify({ key: batch.keys }),
    );
    const found = (json(res).items as unknown[] | undefined)?.length ?? 0;
    assert.ok(
      found === 0 || found === batch.keys.length,
      `batch ${batch.keys[0]}: ${found} of ${batch.keys.length} items, a batch is all or nothing`,
    );
    if (batch.acked) assert.equal(found, batch.keys.length, `acknowledged batch ${batch.keys[0]} is missing`);
  }
}

/** An upload that sends its first megabyte and then waits, until the process is killed. */
function stalledUpload(server: ChildRoost, token: string): void {
  const url = new URL(server.url);
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    method: 'PUT',
    path: '/files/crash/stalled.bin/@write',
    headers: { 'x-auth-token': token, 'content-length': String(10_000_000) },
  });
  req.on('error', () => {});
  req.write(Buffer.alloc(1_000_000, 7));
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const errorsLogged = (server: ChildRoost) => server.lines.filter((l) => /"level":(50|60)/.test(l));

const DATABASE_NAME = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'PostgreSQL' : 'SQLite';

describe(`crash safety: SIGKILL during a stream of writes (${DATABASE_NAME})`, () => {
  let dir: string;
  let configFile: string;
  let dataDir: string;
  let drop: (() => Promise<void>) | undefined;
  let server: ChildRoost | undefined;
  const ledger = new Ledger();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-crash-'));
    dataDir = join(dir, 'data');
    const pg = process.env.ROOST_TEST_DIALECT === 'postgres' ? await createMigratedPostgresDatabase() : undefined;
    drop = pg?.drop;
    const config = { host: '127.0.0.1', port: 0, dataDir, logLevel: 'info', ...pg?.settings };
    configFile = await writeConfig(dir, config);
    // The account, made as `roost user add` makes it, before the server runs.
    await addAccountBeside(parseConfig(config), 'writer');
  });
  after(async () => {
    server?.process.kill('SIGKILL');
    agent.destroy();
    await drop?.();
    await rm(dir, { recursive: true, force: true });
  });

  async function signIn(s: ChildRoost): Promise<string> {
    const res = await call(
      s.url,
      'POST',
      '/users/api/token',
      { 'content-type': 'application/json' },
      JSON.stringify({ identity: 'writer', password: PASSWORD }),
    );
    return String(json(res).token);
  }

  for (const round of [1, 2]) {
    test(`round ${round}: every acknowledged write survives whole, nothing torn, a clean restart`, async () => {
      server ??= await startChild(configFile);
      let token = await signIn(server);
      if (round === 1)
        assert.equal(
          (
            await call(
              server.url,
              'POST',
              '/files/@newItem',
              { 'x-auth-token': token, 'content-type': 'application/json' },
              '{"name":"crash","type":"d"}',
            )
          ).status,
          200,
        );
      const stop = { now: false };
      const before = ledger.count;
      const writing = driveWrites(server, token, ledger, round, stop);
      // A writer that fails before the kill fails the test at once.
      const failed = writing.then(() => {
        throw new Error('the writers stopped before the kill');
      });
      const enough = async () =>
        ledger.count - before >= 60 && [...ledger.acked.keys()].some((k) => k.startsWith(`r${round}-large`))
          ? true
          : undefined;
      await Promise.race([waitFor('writes to be acknowledged', enough, 60_000), failed]);
      stalledUpload(server, token);
      const tmp = join(dataDir, 'blobs', 'tmp');
      // The stalled upload's temporary file: one that stays, at the same size, while the other
      // uploads come and go.
      const stalled = async () => {
        const sizes = async () =>
          new Map(
            await Promise.all(
              (await readdir(tmp))
                .filter((f) => f.endsWith('.part'))
                .map(async (f) => [f, (await stat(join(tmp, f)).catch(() => null))?.size] as const),
            ),
          );
        const first = await sizes();
        await new Promise((resolve) => setTimeout(resolve, 300));
        const second = await sizes();
        return [...first].find(([f, size]) => size !== undefined && size > 0 && second.get(f) === size)?.[0];
      };
      const half = await Promise.race([waitFor('the stalled upload to be half written', stalled), failed]);
      failed.catch(() => {});

      stop.now = true;
      const killed = server;
      server = undefined;
      killed.process.kill('SIGKILL');
      assert.equal(await killed.exited, 'SIGKILL');
      await writing;
      assert.ok((await readdir(tmp)).includes(half), 'the kill left the half upload behind');
      if (existsSync(join(dataDir, 'roost.db'))) {
        const db = new SQLite(join(dataDir, 'roost.db'));
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        db.close();
      }

      server = await startChild(configFile);
      assert.deepEqual(await readdir(tmp), [], "the half upload's temporary file is removed at start");
      token = await signIn(server);
      await verify(server, token, ledger);
      assert.deepEqual(errorsLogged(server), []);
    });
  }

  test('a clean stop (SIGTERM) after all that exits 0', async () => {
    assert.ok(server);
    server.process.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.deepEqual(errorsLogged(server), []);
    server = undefined;
  });
});
