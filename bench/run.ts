/**
 * `npm run bench`: each server runs in a child process of its own (one core), autocannon in
 * this one (the other core), all on 127.0.0.1. Every figure is put beside the bare Fastify
 * route measured in the same run, and written to bench/RESULTS.md between the markers.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const here = new URL('.', import.meta.url).pathname;

interface Started { child: ChildProcess; info: { url: string; token?: string } }

function start(script: string): Promise<Started> {
  const child = fork(here + script, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (info) => resolve({ child, info: info as Started['info'] }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

interface Row { name: string; rps: number; p50: number; p99: number; errors: number; baseline: string }

async function measure(name: string, baseline: string, options: autocannon.Options): Promise<Row> {
  const r = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...options });
  const errors = r.errors + r.timeouts + r.non2xx;
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors, baseline };
}

const rows: Row[] = [];
const bare = await start('bare-server.ts');
rows.push(await measure('bare Fastify route (GET /json)', '', { url: `${bare.info.url}/json` }));
bare.child.kill();

const roost = await start('roost-server.ts');
const { url, token } = roost.info;
const auth = { 'x-auth-token': token ?? '' };
rows.push(await measure('ping (GET /users/api/ping)', 'bare', { url: `${url}/users/api/ping` }));
rows.push(await measure('identity with token (GET)', 'bare', { url: `${url}/users/api/identity`, headers: auth }));
rows.push(await measure('profile with token (POST JSON)', 'bare', {
  url: `${url}/users/api/profile`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}',
}));
rows.push(await measure('token (sign-in, argon2id)', 'bare', {
  url: `${url}/users/api/token`, method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ identity: 'bench', password: 'bench-password' }),
}));
roost.child.kill();

const bareRps = rows[0]?.rps ?? 1;
const cpu = cpus()[0]?.model ?? 'unknown cpu';
const table = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
    `autocannon ${CONNECTIONS} connections × ${DURATION} s per row, server and load generator on 127.0.0.1, SQLite.`,
  '',
  '| operation | requests/s | p50 ms | p99 ms | errors | vs bare route |',
  '|---|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.baseline ? `${((r.rps / bareRps) * 100).toFixed(0)}%` : '100%'} |`),
].join('\n');
console.log(table);

const file = here + 'RESULTS.md';
const begin = '<!-- users:begin -->';
const end = '<!-- users:end -->';
const current = readFileSync(file, 'utf8');
const next = current.includes(begin)
  ? current.replace(new RegExp(`${begin}[\\s\\S]*${end}`), `${begin}\n${table}\n${end}`)
  : `${current.trimEnd()}\n\n${begin}\n${table}\n${end}\n`;
writeFileSync(file, next);
for (const r of rows) if (r.errors > 0) process.exitCode = 1;
