// The data store (SQLite) against the bare Fastify route measured in the same run.
import type { ChildProcess } from 'node:child_process';
import type autocannon from 'autocannon';
import { DURATION, machineLine, measure, reportErrors, start, writeSection, type Row } from './lib.js';

/** Slices per row: the bare route and the operation take turns, so a burst of load elsewhere on the machine hits both. */
const SLICES = Math.max(2, Math.round(DURATION / 2));

interface PairedRow extends Row {
  /** Server CPU time per request, microseconds: the operation's, and the bare route's. */
  cpu: number;
  bareCpu: number;
}

/** CPU time the server process has used so far (user + system, microseconds); see cpu-probe.ts. */
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

/** One slice: requests per second, and the server's CPU time per request. */
async function slice(name: string, options: autocannon.Options, server: ChildProcess, duration: number): Promise<Row & { cpu: number }> {
  const before = await cpuOf(server);
  const row = await measure(name, { ...options, duration });
  const used = (await cpuOf(server)) - before;
  return { ...row, cpu: used / Math.max(1, row.rps * duration) };
}

/**
 * One operation against the bare route in alternating slices of DURATION / SLICES seconds;
 * the row's baseline is the bare route's mean over its own slices.
 */
async function paired(name: string, options: autocannon.Options, roost: ChildProcess, bare: { child: ChildProcess; url: string }): Promise<PairedRow> {
  const duration = DURATION / SLICES;
  // Unmeasured first: the first seconds of a route run cold code (the JIT has not optimised it
  // yet), which cost this operation up to half again its CPU time per request.
  await measure('warm-up', { ...options, duration: 2 });
  await measure('warm-up', { url: `${bare.url}/json`, duration: 1 });
  const bareRows: Array<Row & { cpu: number }> = [];
  const opRows: Array<Row & { cpu: number }> = [];
  for (let i = 0; i < SLICES; i++) {
    bareRows.push(await slice('bare', { url: `${bare.url}/json` }, bare.child, duration));
    opRows.push(await slice(name, options, roost, duration));
  }
  const mean = (rows: Array<Row & { cpu: number }>, pick: (r: Row & { cpu: number }) => number) => rows.reduce((sum, r) => sum + pick(r), 0) / rows.length;
  return {
    name,
    rps: mean(opRows, (r) => r.rps),
    p50: Math.max(...opRows.map((r) => r.p50)),
    p99: Math.max(...opRows.map((r) => r.p99)),
    errors: [...opRows, ...bareRows].reduce((sum, r) => sum + r.errors, 0),
    baseline: { name: 'bare route', rps: mean(bareRows, (r) => r.rps) },
    cpu: mean(opRows, (r) => r.cpu),
    bareCpu: mean(bareRows, (r) => r.cpu),
  };
}

function report(rows: readonly PairedRow[]): string {
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  return [
    machineLine(),
    '',
    '| operation | requests/s | p50 ms | p99 ms | errors | requests/s vs bare route | server CPU µs/request (bare route) | capacity vs bare route (by CPU) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) =>
      `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${pct(r.rps / (r.baseline?.rps ?? r.rps))} | ${r.cpu.toFixed(0)} (${r.bareCpu.toFixed(0)}) | ${pct(r.bareCpu / r.cpu)} |`),
    '',
    `Each row alternates ${SLICES} slices of the bare Fastify route and ${SLICES} of the operation (${DURATION / SLICES} s each), after an`,
    "unmeasured warm-up of both; its ratios are to the bare route's mean over the same slices. The load generator",
    "shares the machine's cores with the server, so requests per second move from run to run and even within one.",
    "The last column divides the bare route's server CPU time per request",
    "by the operation's: how many of the operation's requests one core could serve per bare-route request; it does",
    'not depend on how much CPU the load generator gets.',
  ].join('\n');
}

export async function run(): Promise<void> {
  const bare = await start('bare-server.ts');
  const roost = await start<{ url: string; token: string }>('datastore-server.ts');
  const rows: PairedRow[] = [];
  try {
    const { url, token } = roost.info;
    const base = { child: bare.child, url: bare.info.url };
    const json = { 'x-auth-token': token, 'content-type': 'application/json' };
    rows.push(await paired('getItem (GET ?key=)', { url: `${url}/data/api/getItem?key=k500`, headers: { 'x-auth-token': token } }, roost.child, base));
    rows.push(await paired('getItem (POST JSON)', { url: `${url}/data/api/getItem`, method: 'POST', headers: json, body: JSON.stringify({ key: 'k501' }) }, roost.child, base));
    rows.push(await paired('setItem, replace (POST JSON)', {
      url: `${url}/data/api/setItem`, method: 'POST', headers: json, body: JSON.stringify({ key: 'k502', value: 'a new value of item 502' }),
    }, roost.child, base));
    rows.push(await paired('list, 20 items of 1000 (GET)', { url: `${url}/data/api/list?start=101&size=20`, headers: { 'x-auth-token': token } }, roost.child, base));
  } finally {
    roost.child.kill();
    bare.child.kill();
  }
  const text = report(rows);
  console.log(text);
  writeSection('datastore', text);
  reportErrors(rows);
}
