// The file store against @fastify/static serving the same file and directory in the same run.
import { measure, reportErrors, start, table, writeSection, type Row } from './lib.js';

// 1 MiB answers: fewer connections, so that the load generator (which parses every byte in
// JavaScript) is not what is measured.
const FILE = { connections: 10 };

export async function run(): Promise<void> {
  const rows: Row[] = [];
  const baseline = await start('static-server.ts');
  let staticFile: Row;
  let staticList: Row;
  let staticNames: Row;
  try {
    staticFile = await measure('@fastify/static: GET 1 MiB file', { ...FILE, url: `${baseline.info.url}/big.bin` });
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
