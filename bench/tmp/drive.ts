// Scratch driver (not committed): N uploads of one kind against a bench server, for CPU profiles.
import { Agent, request } from 'node:http';
import { start, stop } from '../lib.js';
const mode = process.argv[2] ?? 'tus';
const N = Number(process.argv[3] ?? 400);
const size = Number(process.argv[4] ?? 1) * 1024 * 1024;
const body = Buffer.alloc(size, 7);
function send(agent: Agent, url: string, method: string, headers: Record<string, string>, b?: Buffer) {
  return new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
    const req = request(url, { agent, method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end(b);
  });
}
const files = await start<{ url: string; token: string }>(process.env.PROF ? 'tmp/prof-server.ts' : 'filestore-server.ts');
const ask = (m: object) => new Promise((r) => { files.child.once('message', r); files.child.send(m); });
const { url, token } = files.info;
const auth = { 'x-auth-token': token };
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
let n = 0;
import { readFileSync } from 'node:fs';
const cpuOf = () => { const f = readFileSync(`/proc/${files.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
let mode2 = mode;
let round0 = 0;
async function one() {
  const i = n++;
  const mode = mode2;
  if (mode === 'plain') {
    const r = await send(agent, `${url}/files/p-${round0}-${i}.bin/@write`, 'PUT', { ...auth, 'content-type': 'application/octet-stream' }, body);
    if (r.status !== 200) throw new Error(String(r.status));
  } else if (mode === 'one') {
    const r = await send(agent, `${url}/files/@uploads`, 'POST', { ...auth, 'tus-resumable': '1.0.0', 'upload-length': String(size),
      'upload-metadata': `path ${Buffer.from(`o-${round0}-${i}.bin`).toString('base64')}`, 'content-type': 'application/offset+octet-stream' }, body);
    if (r.status !== 201) throw new Error(String(r.status));
  } else {
    const c = await send(agent, `${url}/files/@uploads`, 'POST', { ...auth, 'tus-resumable': '1.0.0', 'upload-length': String(size),
      'upload-metadata': `path ${Buffer.from(`t-${round0}-${i}.bin`).toString('base64')}` });
    if (c.status !== 201) throw new Error(String(c.status));
    if (mode === 'post') return;
    const p = await send(agent, url + c.location, 'PATCH', { ...auth, 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body);
    if (p.status !== 204) throw new Error(String(p.status));
  }
}
const modes = mode === 'all' ? ['plain', 'tus', 'one', 'post'] : mode.split(',');
const sum: Record<string, number[]> = {};
for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++)
  for (const m of modes) {
    mode2 = m; n = 0; round0 = round;
    if (process.env.PROF) await ask({ op: 'start' });
    const c0 = cpuOf(); const t0 = Date.now();
    await Promise.all([0, 1, 2, 3].map(async () => { while (n < N) await one(); }));
    const cpu = cpuOf() - c0; const ms = Date.now() - t0;
    (sum[m] ??= []).push(cpu * 1000 / N);
    if (process.env.PROF) await ask({ op: 'stop', file: `${process.env.PROF}/${m}-${round}.cpuprofile` });
    if (process.env.VERBOSE) console.log(m, 'round', round, (N / ms * 1000).toFixed(1), 'files/s', (cpu * 1000 / N).toFixed(0), 'µs CPU/file');
  }
for (const [m, v] of Object.entries(sum)) console.log(m, 'mean µs CPU/file', (v.reduce((a, b) => a + b, 0) / v.length).toFixed(0), 'vs plain', (100 * sum.plain!.reduce((a, b) => a + b, 0) / v.reduce((a, b) => a + b, 0)).toFixed(0) + '%');
await stop(files);
