// The data store (SQLite) against the bare Fastify route measured in the same run.
import type autocannon from 'autocannon';
import { DURATION, measure, reportErrors, start, table, writeSection, type Row } from './lib.js';

/** Slices per row: the bare route and the operation take turns, so a burst of load elsewhere on the machine hits both. */
const SLICES = Math.max(2, Math.round(DURATION / 2));

/**
 * One operation against the bare route, measured in alternating slices of DURATION / SLICES
 * seconds each; the row's baseline is the bare route's mean over its own slices.
 */
async function paired(name: string, options: autocannon.Options, bareUrl: string): Promise<Row> {
  const duration = DURATION / SLICES;
  const bare: Row[] = [];
  const op: Row[] = [];
  for (let i = 0; i < SLICES; i++) {
    bare.push(await measure('bare', { url: `${bareUrl}/json`, duration }));
    op.push(await measure(name, { ...options, duration }));
  }
  const mean = (rows: Row[], pick: (r: Row) => number) => rows.reduce((sum, r) => sum + pick(r), 0) / rows.length;
  return {
    name,
    rps: mean(op, (r) => r.rps),
    p50: Math.max(...op.map((r) => r.p50)),
    p99: Math.max(...op.map((r) => r.p99)),
    errors: op.reduce((sum, r) => sum + r.errors, 0) + bare.reduce((sum, r) => sum + r.errors, 0),
    baseline: { name: 'bare route (interleaved)', rps: mean(bare, (r) => r.rps) },
  };
}

export async function run(): Promise<void> {
  const bare = await start('bare-server.ts');
  const roost = await start<{ url: string; token: string }>('datastore-server.ts');
  const rows: Row[] = [];
  try {
    const { url, token } = roost.info;
    const bareUrl = bare.info.url;
    const json = { 'x-auth-token': token, 'content-type': 'application/json' };
    rows.push(await paired('identity', { url: `${url}/users/api/identity`, headers: { 'x-auth-token': token } }, bareUrl));
    rows.push(await paired('data ping', { url: `${url}/data/api/ping`, headers: { 'x-auth-token': token } }, bareUrl));
    rows.push(await paired('getItem (GET ?key=)', { url: `${url}/data/api/getItem?key=k500`, headers: { 'x-auth-token': token } }, bareUrl));
    rows.push(await paired('getItem (POST JSON)', { url: `${url}/data/api/getItem`, method: 'POST', headers: json, body: JSON.stringify({ key: 'k501' }) }, bareUrl));
    rows.push(await paired('setItem, replace (POST JSON)', {
      url: `${url}/data/api/setItem`, method: 'POST', headers: json, body: JSON.stringify({ key: 'k502', value: 'a new value of item 502' }),
    }, bareUrl));
    rows.push(await paired('list, 20 items of 1000 (GET)', { url: `${url}/data/api/list?start=101&size=20`, headers: { 'x-auth-token': token } }, bareUrl));
  } finally {
    roost.child.kill();
    bare.child.kill();
  }
  const text = [
    table(rows),
    '',
    `Each row alternates ${SLICES} slices of the bare Fastify route and ${SLICES} of the operation (${DURATION / SLICES} s each); its ratio is to the`,
    "bare route's mean over the same slices. Two other engineers share this machine's two cores, so absolute figures",
    'move from run to run and even within one; the ratios to the interleaved baseline are what to compare.',
  ].join('\n');
  console.log(text);
  
  reportErrors(rows);
}
