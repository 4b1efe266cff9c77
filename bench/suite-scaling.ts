// One Roost process against two on one PostgreSQL database (docs/scaling.md), and what the
// session cache saves there. Needs the bench's PostgreSQL (postgres.ts: ROOST_BENCH_DATABASE_URL,
// else ROOST_TEST_DATABASE_URL, else the tests' local one); a database of its own is created and dropped.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type autocannon from 'autocannon';
import { parseConfig } from '../packages/server/src/core/config.js';
import { newId } from '../packages/server/src/core/ids.js';
import { openServices } from '../packages/server/src/services.js';
import { CONNECTIONS, DURATION, measure, reportErrors, start, writeSection, type Row } from './lib.js';
import { adminUrl, postgresReachable } from './postgres.js';
import { BENCH_USER, benchAccount } from './roost-setup.js';

/** Slices per comparison: the two sides take turns, so a burst of load elsewhere on the (shared) machine hits both. */
const SLICES = Math.max(2, Math.round(DURATION / 2));

interface Server {
  child: ChildProcess;
  url: string;
}

function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      const cpu = (message as { cpu?: unknown }).cpu;
      if (typeof cpu !== 'number') return;
      child.off('message', onMessage);
      resolve(cpu);
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

interface Side {
  name: string;
  servers: Server[];
}

interface Measured {
  rps: number;
  p99: number;
  errors: number;
  /** Server CPU time per request, µs, summed over the side's processes. */
  cpu: number;
}

/** Alternating slices of `left` and `right` on the same request; each side's mean. */
async function compare(
  options: (urls: string[]) => autocannon.Options,
  left: Side,
  right: Side,
): Promise<[Measured, Measured]> {
  const duration = DURATION / SLICES;
  const run = async (side: Side) => {
    const urls = side.servers.map((s) => s.url);
    const before = await Promise.all(side.servers.map((s) => cpuOf(s.child)));
    const row: Row = await measure(side.name, { ...options(urls), duration });
    const after = await Promise.all(side.servers.map((s) => cpuOf(s.child)));
    const used = after.reduce((sum, a, i) => sum + a - before[i]!, 0);
    return { rps: row.rps, p99: row.p99, errors: row.errors, cpu: used / Math.max(1, row.rps * duration) };
  };
  // Unmeasured warm-up of both (cold code costs more than it will).
  for (const side of [left, right])
    await measure('warm-up', { ...options(side.servers.map((s) => s.url)), duration: 2 });
  const results: [Measured[], Measured[]] = [[], []];
  for (let i = 0; i < SLICES; i++) {
    results[0].push(await run(left));
    results[1].push(await run(right));
  }
  const mean = (rows: Measured[]): Measured => ({
    rps: rows.reduce((s, r) => s + r.rps, 0) / rows.length,
    p99: Math.max(...rows.map((r) => r.p99)),
    errors: rows.reduce((s, r) => s + r.errors, 0),
    cpu: rows.reduce((s, r) => s + r.cpu, 0) / rows.length,
  });
  return [mean(results[0]), mean(results[1])];
}

export async function run(): Promise<void> {
  if (!(await postgresReachable())) {
    console.log(
      `scaling: skipped (PostgreSQL is not reachable at ${new URL(adminUrl).host}; set ROOST_BENCH_DATABASE_URL)`,
    );
    return;
  }
  const name = `roost_bench_${newId().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const servers: Server[] = [];
  try {
    // The schema and one user, before the servers start.
    const services = await openServices(
      parseConfig({ databaseUrl, logLevel: 'error', dataDir: mkdtempSync(join(tmpdir(), 'roost-bench-')) }),
    );
    await benchAccount(services.users, BENCH_USER.name);
    await services.close();

    const startOne = async (sessionCache: number) => {
      const s = await start<{ url: string }>('scaling-server.ts', {
        BENCH_DATABASE_URL: databaseUrl,
        BENCH_SESSION_CACHE: String(sessionCache),
      });
      const server = { child: s.child, url: s.info.url };
      servers.push(server);
      return server;
    };
    const [a, b, uncached] = await Promise.all([startOne(2), startOne(2), startOne(0)]);
    const token = (
      (await (
        await fetch(`${a.url}/users/api/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ identity: 'bench', password: 'bench-password' }),
        })
      ).json()) as { token: string }
    ).token;
    const auth = { 'x-auth-token': token };
    for (let i = 0; i < 1000; i += 100) {
      const items = Array.from({ length: 100 }, (_, j) => ({ key: `k${i + j}`, value: `value of item ${i + j}` }));
      await fetch(`${a.url}/data/api/newItem`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ items }),
      });
    }

    const one: Side = { name: '1 process', servers: [a] };
    const two: Side = { name: '2 processes', servers: [a, b] };
    const json = { ...auth, 'content-type': 'application/json' };
    const cases: Array<[string, (urls: string[]) => autocannon.Options]> = [
      ['identity with token (GET)', (urls) => ({ url: multi(urls, '/users/api/identity'), headers: auth })],
      ['getItem (GET ?key=)', (urls) => ({ url: multi(urls, '/data/api/getItem?key=k500'), headers: auth })],
      [
        'setItem, replace (POST JSON)',
        (urls) => ({
          url: multi(urls, '/data/api/setItem'),
          method: 'POST',
          headers: json,
          body: JSON.stringify({ key: 'k42', value: 'replaced' }),
        }),
      ],
    ];
    const lines: string[] = [];
    const errors: Row[] = [];
    for (const [label, options] of cases) {
      const [l, r] = await compare(options, one, two);
      lines.push(
        `| ${label} | ${Math.round(l.rps)} | ${Math.round(r.rps)} | ${(r.rps / l.rps).toFixed(2)} × | ` +
          `${Math.round(l.cpu)} / ${Math.round(r.cpu)} | ${l.p99} / ${r.p99} |`,
      );
      errors.push(
        { name: `${label}, 1 process`, rps: l.rps, p50: 0, p99: l.p99, errors: l.errors },
        { name: `${label}, 2 processes`, rps: r.rps, p50: 0, p99: r.p99, errors: r.errors },
      );
    }
    const [cached, plain] = await compare((urls) => ({ url: multi(urls, '/users/api/identity'), headers: auth }), one, {
      name: 'no session cache',
      servers: [uncached],
    });
    errors.push(
      { name: 'identity, cached', rps: cached.rps, p50: 0, p99: cached.p99, errors: cached.errors },
      { name: 'identity, no cache', rps: plain.rps, p50: 0, p99: plain.p99, errors: plain.errors },
    );

    const text = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ` +
        `${cpus()[0]?.model ?? 'unknown cpu'}, Node ${process.version}, PostgreSQL on 127.0.0.1; ` +
        `autocannon ${CONNECTIONS} connections (spread evenly over the processes), ${SLICES} alternating slices of ` +
        `${(DURATION / SLICES).toFixed(1)} s per side. ` +
        "The machine is shared with other work (other developers' builds and tests ran meanwhile): compare the two " +
        'columns of a row, measured in turns in the same run, not figures across runs.',
      '',
      '| operation | 1 process req/s | 2 processes req/s | 2 vs 1 | server CPU µs/request (1 / 2) | p99 ms (1 / 2) |',
      '|---|---:|---:|---:|---:|---:|',
      ...lines,
      '',
      `Session cache on PostgreSQL (identity with token, one process): ${Math.round(cached.rps)} req/s with ` +
        `\`sessionCacheSeconds: 2\` and the change feed, ` +
        `${Math.round(plain.rps)} req/s with \`sessionCacheSeconds: 0\` ` +
        `(${((plain.rps / cached.rps) * 100).toFixed(0)}%); server CPU ${Math.round(cached.cpu)} vs ` +
        `${Math.round(plain.cpu)} µs/request.`,
    ].join('\n');
    console.log(text);
    writeSection('scaling', text);
    reportErrors(errors);
  } finally {
    for (const s of servers) s.child.kill();
    await new Promise((r) => setTimeout(r, 500));
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Several target URLs: autocannon spreads its connections over them in turn (its types know one only). */
function multi(urls: string[], path: string): string {
  return urls.map((u) => u + path) as unknown as string;
}
