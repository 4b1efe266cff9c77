import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { parseConfig } from '../packages/server/src/core/config.js';
import { createRoost } from '../packages/server/src/roost.js';
const roost = await createRoost(parseConfig({ dataDir: mkdtempSync(join(tmpdir(), 'rb-')), logLevel: 'error', rateLimit: { max: 1e9 } }));
await roost.users.createUser({ name: 'bench', email: 'b@e.com', password: 'bench-password', realname: '', data: '', notify: false, groups: [], state: 'active', pending: null });
const app = roost.http;
const tok = JSON.parse((await app.inject({ method: 'POST', url: '/users/api/token', payload: { identity: 'bench', password: 'bench-password' } })).body).token;
const h = { 'x-auth-token': tok };
for (let s = 0; s < 1000; s += 100) await app.inject({ method: 'POST', url: '/data/api/newItem', headers: h, payload: { items: Array.from({ length: 100 }, (_, i) => ({ key: `k${s + i}`, value: `v${s + i}` })) } });
const bare = Fastify(); bare.get('/json', async () => ({ result: 1 })); await bare.ready();
async function time(label: string, f: () => Promise<unknown>, n = 10000) {
  for (let i = 0; i < 1000; i++) await f();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await f();
  console.log(label.padEnd(20), (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(1), 'µs');
}
for (let round = 0; round < 2; round++) {
await time('bare', () => bare.inject({ url: '/json' }));
await time('ping', () => app.inject({ url: '/data/api/ping' }));
await time('identity', () => app.inject({ url: '/users/api/identity', headers: h }));
await time('getItem', () => app.inject({ url: '/data/api/getItem?key=k500', headers: h }));
await time('setItem', () => app.inject({ method: 'POST', url: '/data/api/setItem', headers: h, payload: { key: 'k502', value: 'a new value' } }), 5000);
}
await roost.close();
