/**
 * What every benchmark suite shares: servers in child processes of their own (one core),
 * autocannon in this process (the other core), all on 127.0.0.1, and a section of
 * bench/RESULTS.md rewritten between its markers.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const here = new URL('.', import.meta.url).pathname;

export interface Started<Info> { child: ChildProcess; info: Info }

/** Fork a server script of bench/; it answers with one IPC message (its URL and whatever else it set up). */
export function start<Info = { url: string }>(script: string, env: Record<string, string> = {}): Promise<Started<Info>> {
  const child = fork(here + script, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    child.once('message', (info) => resolve({ child, info: info as Info }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export interface Row { name: string; rps: number; p50: number; p99: number; errors: number; baseline?: { name: string; rps: number } }

export async function measure(name: string, options: autocannon.Options, baseline?: Row): Promise<Row> {
  const r = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...options });
  const errors = r.errors + r.timeouts + r.non2xx;
  const row: Row = { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors };
  if (baseline) row.baseline = { name: baseline.name, rps: baseline.rps };
  return row;
}

export function machineLine(database = 'SQLite'): string {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  return `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
    `autocannon ${CONNECTIONS} connections × ${DURATION} s per row, server and load generator on 127.0.0.1, ${database}.`;
}

export function table(rows: readonly Row[], database?: string): string {
  // NaN: a row measured without latencies.
  const ms = (n: number) => (Number.isNaN(n) ? '–' : String(n));
  const pct = (r: Row) => (r.baseline ? `${((r.rps / r.baseline.rps) * 100).toFixed(0)}% of ${r.baseline.name}` : 'baseline');
  return [
    machineLine(database),
    '',
    '| operation | requests/s | p50 ms | p99 ms | errors | ratio |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} | ${pct(r)} |`),
  ].join('\n');
}

/** Replace the section between `<!-- marker:begin -->` and `<!-- marker:end -->` (appended when missing). */
export function writeSection(marker: string, text: string): void {
  const file = here + 'RESULTS.md';
  const begin = `<!-- ${marker}:begin -->`;
  const end = `<!-- ${marker}:end -->`;
  const current = readFileSync(file, 'utf8');
  const next = current.includes(begin)
    ? current.replace(new RegExp(`${begin}[\\s\\S]*${end}`), `${begin}\n${text}\n${end}`)
    : `${current.trimEnd()}\n\n${begin}\n${text}\n${end}\n`;
  writeFileSync(file, next);
}

/** A run with failed requests is not a measurement: fail the command. */
export function reportErrors(rows: readonly Row[]): void {
  for (const r of rows) if (r.errors > 0) { console.error(`${r.name}: ${r.errors} errors`); process.exitCode = 1; }
}

/** The bare Fastify JSON route, the ceiling every suite compares against. */
export async function measureBare(): Promise<Row> {
  const bare = await start('bare-server.ts');
  try {
    return await measure('bare Fastify route', { url: `${bare.info.url}/json` });
  } finally {
    bare.child.kill();
  }
}
