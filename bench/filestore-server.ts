// Roost with a public file store `files` (anonymous reads, as @fastify/static serves them) and
// a signed-in user; the same 1 MiB file and 1000-entry directory, uploaded through the API.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../packages/server/src/core/config.js';
import { createRoost } from '../packages/server/src/roost.js';
import { bigFile, DIRECTORY_ENTRIES, entryBody, entryName } from './filestore-fixture.js';

const dataDir = mkdtempSync(join(tmpdir(), 'roost-bench-files-'));
const config = parseConfig({ dataDir, port: 0, logLevel: 'error', rateLimit: { max: 10_000_000 }, fileStores: { files: { read: 'sys:everyone' } } });
const roost = await createRoost(config);
await roost.users.createUser({
  name: 'bench', email: 'bench@example.com', password: 'bench-password', realname: 'Bench', data: '', notify: false, groups: [], state: 'active', pending: null,
});
const url = await roost.listen({ port: 0, host: '127.0.0.1' });
const signin = await fetch(`${url}/users/api/token`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'bench', password: 'bench-password' }),
});
const { token } = (await signin.json()) as { token: string };
const call = async (path: string, init: RequestInit) => {
  const res = await fetch(url + path, { ...init, headers: { 'x-auth-token': token, ...init.headers } });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
await call('/files/big.bin/@write', { method: 'PUT', body: bigFile });
await call('/files/@newItem', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'many', type: 'd' }) });
for (let i = 0; i < DIRECTORY_ENTRIES; i++) await call(`/files/many/${entryName(i)}/@write`, { method: 'PUT', body: entryBody(i) });
process.send?.({ url, token });
