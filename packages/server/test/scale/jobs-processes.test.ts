import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgres } from '../../src/storage/database.js';
import { createPostgresDatabase, type TestPostgresDatabase } from '../helpers/test-server.js';
import { eventually, onPostgres } from './scale-helpers.js';

/**
 * An extension's jobs (extend/jobs.ts; docs/hooks.md, "Jobs") in two processes on one PostgreSQL
 * database: each tick of a job every second runs once, in one of them; after one is killed
 * (SIGKILL: its timers and leases simply stop), the other runs the next ticks, still once each,
 * and the third try of a background job that failed twice; every failure is logged by job name.
 */
const PROGRAM = fileURLToPath(new URL('../fixtures/schedule-server.ts', import.meta.url));

interface Server {
  child: ChildProcess;
  exited: Promise<unknown>;
  /** What it wrote so far (its log: pino's JSON lines). */
  output(): string;
}

function start(database: TestPostgresDatabase, dataDir: string, runsFile: string, ...more: string[]): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=roost-source',
      '--import',
      import.meta.resolve('tsx'),
      PROGRAM,
      JSON.stringify(database.settings),
      dataDir,
      runsFile,
      ...more,
    ],
    { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`did not start: ${out}`)), 60_000);
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening on')) {
        clearTimeout(timer);
        resolve({ child, exited, output: () => out });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

/** The runs written so far: each line a tick and the process that ran it. */
function runs(file: string): Array<{ tick: string; pid: number }> {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [tick = '', pid = ''] = line.split(' ');
      return { tick, pid: Number(pid) };
    });
}

describe('a job every second in two processes on one PostgreSQL database', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  test('a tick runs once with both running, and again after one is killed; so does a retried job', async () => {
    const db = await createPostgresDatabase();
    cleanup.push(() => db.drop());
    const dir = await mkdtemp(join(tmpdir(), 'roost-schedule-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'runs.txt');
    // One first, so that the second does not race it to the migrations.
    const a = await start(db, join(dir, 'a'), file);
    cleanup.push(async () => {
      a.child.kill('SIGKILL');
      await a.exited;
    });
    const b = await start(db, join(dir, 'b'), file, 'enqueue');
    cleanup.push(async () => {
      b.child.kill('SIGTERM');
      await b.exited;
    });
    const bothFrom = Date.now();
    const ticksOf = () => runs(file).filter((r) => !r.tick.startsWith('flaky'));
    const flakyTries = () => runs(file).filter((r) => r.tick.startsWith('flaky'));
    await eventually(async () => ticksOf().filter((r) => Date.parse(r.tick) >= bothFrom).length >= 3, '3 ticks', 8000);
    // Tries 1 and 2 fail (2 s apart); the third waits 4 s: the process that enqueued it is killed first.
    await eventually(async () => flakyTries().length >= 2, 'two tries of the background job', 8000);
    // The second try's failure kept too: a process writes its line before it records the failure,
    // and killed in between, its try would run again (seen once under load).
    await eventually(
      async () => {
        const client = new (postgres().Client)({ connectionString: db.directUrl });
        await client.connect();
        try {
          const { rows } = await client.query("select last_error from jobs where kind = 'job:flaky'");
          return rows.some((row: { last_error: string | null }) => row.last_error?.includes('try 2') ?? false);
        } finally {
          await client.end();
        }
      },
      "the second try's failure recorded",
      8000,
    );

    b.child.kill('SIGKILL');
    await b.exited;
    const killedAt = Date.now();
    const survivor = a.child.pid;
    // The survivor's ticks; those of the first seconds may be skipped while the dead lease holds.
    await eventually(
      async () => ticksOf().filter((r) => Date.parse(r.tick) > killedAt + 1000).length >= 2,
      '2 ticks after the kill',
      10_000,
    );
    // Killed after its second try failed: the third waits out the backoff (4 s), then runs in the survivor.
    await eventually(async () => flakyTries().length === 3, 'the third try', 15_000);
    const all = ticksOf();
    const ticks = all.map((r) => r.tick);
    assert.equal(new Set(ticks).size, ticks.length, `each tick once: ${ticks.join(' ')}`);
    for (const run of all.filter((r) => Date.parse(r.tick) > killedAt + 1000)) assert.equal(run.pid, survivor);
    assert.deepEqual(
      flakyTries().map((r) => r.tick),
      ['flaky-1-1', 'flaky-1-2', 'flaky-1-3'],
    );
    assert.equal(flakyTries()[2]?.pid, survivor);
    const log = a.output() + b.output();
    assert.match(log, /"job":"flaky","attempt":1,.*"msg":"job flaky failed"/);
    assert.match(log, /try 2 failed/);
  });
});
