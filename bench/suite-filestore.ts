// The file store against @fastify/static serving the same file and directory in the same run.
import { Agent, request } from 'node:http';
import { DURATION, measure, reportErrors, start, table, writeSection, type Row } from './lib.js';

// 1 MiB answers: fewer connections, so that the load generator (which parses every byte in
// JavaScript) is not what is measured.
const FILE = { connections: 10 };

/**
 * Downloads per second with Node's own HTTP client discarding the bodies (llhttp in C): a
 * second opinion on the 1 MiB rows, since autocannon parses bodies in JavaScript and may be
 * what sets the pace there. Latency is not measured here.
 */
async function downloads(name: string, url: string, headers: Record<string, string>, baseline?: Row): Promise<Row> {
  const agent = new Agent({ keepAlive: true, maxSockets: FILE.connections });
  const until = Date.now() + DURATION * 1000;
  let done = 0;
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      request(url, { agent, headers }, (res) => {
        if (res.statusCode !== 200) errors++;
        res.resume();
        res.on('end', () => {
          done++;
          resolve();
        });
      })
        .on('error', () => {
          errors++;
          resolve();
        })
        .end();
    });
  await Promise.all(Array.from({ length: FILE.connections }, async () => {
    while (Date.now() < until) await one();
  }));
  agent.destroy();
  const row: Row = { name: `${name} (node:http client)`, rps: done / DURATION, p50: Number.NaN, p99: Number.NaN, errors };
  if (baseline) row.baseline = { name: baseline.name, rps: baseline.rps };
  return row;
}

export async function run(): Promise<void> {
  const rows: Row[] = [];
  const baseline = await start('static-server.ts');
  let staticFile: Row;
  let staticDownloads: Row;
  let staticList: Row;
  let staticNames: Row;
  try {
    staticFile = await measure('@fastify/static: GET 1 MiB file', { ...FILE, url: `${baseline.info.url}/big.bin` });
    staticDownloads = await downloads('@fastify/static: GET 1 MiB file', `${baseline.info.url}/big.bin`, {});
    staticList = await measure('@fastify/static: JSON listing of 1000 entries (extended)', { url: `${baseline.info.url}/many/` });
    staticNames = await measure('@fastify/static: JSON listing of 1000 names', { url: `${baseline.info.url}/names/many/` });
  } finally {
    baseline.child.kill();
  }
  rows.push(staticFile);
  const roost = await start<{ url: string; token: string }>('filestore-server.ts');
  try {
    const { url, token } = roost.info;
    rows.push(await measure('Roost: GET 1 MiB file (anonymous, public store)', { ...FILE, url: `${url}/files/big.bin` }, staticFile));
    rows.push(await measure('Roost: GET 1 MiB file with token', { ...FILE, url: `${url}/files/api/big.bin`, headers: { 'x-auth-token': token } }, staticFile));
    rows.push(await measure('Roost: @read 1 MiB file (POST)', { ...FILE, url: `${url}/files/api/big.bin/@read`, method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' }, body: '{}' }, staticFile));
    rows.push(staticDownloads);
    rows.push(await downloads('Roost: GET 1 MiB file (anonymous)', `${url}/files/big.bin`, {}, staticDownloads));
    rows.push(await downloads('Roost: GET 1 MiB file with token', `${url}/files/api/big.bin`, { 'x-auth-token': token }, staticDownloads));
    rows.push(staticList);
    const list = await measure('Roost: @list of 1000 entries (size=1000)', { url: `${url}/files/many/@list?size=1000` }, staticList);
    rows.push(list, staticNames, { ...list, baseline: { name: staticNames.name, rps: staticNames.rps } });
  } finally {
    roost.child.kill();
  }
  const text = table(rows);
  console.log(text);
  writeSection('filestore', text);
  reportErrors(rows);
}
