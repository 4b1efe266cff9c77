// Roost as roost-server.ts starts it, with `durability` from BENCH_DURABILITY (`full`, the
// default, or `fast`) and /metrics off with BENCH_METRICS=off, a file `note.txt` of the store
// `files` and the item k0 of `data`, both owned by the signed-in user: for suite-durability.ts
// and suite-metrics.ts; the recent requests kept for the logs page with BENCH_REQUEST_LOG=on
// (suite-request-log.ts).
import { startBenchRoost } from './roost-setup.js';

const durability = process.env.BENCH_DURABILITY === 'fast' ? 'fast' : 'full';
const metrics = { enabled: process.env.BENCH_METRICS !== 'off' };
const requestLog = { keep: process.env.BENCH_REQUEST_LOG === 'on' };
const { url, token, database } = await startBenchRoost({ durability, metrics, requestLog });
const headers = { 'content-type': 'application/json', 'x-auth-token': token };
for (const [path, body] of [
  ['/data/api/newItem', { key: 'k0', value: 'first' }],
  ['/files/api/@newItem', { name: 'note.txt', type: 'f', contents: 'first' }],
] as const) {
  const res = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}
process.send?.({ url, token, database });
