// Roost with a public file store `files` (anonymous reads, as @fastify/static serves them) and
// a signed-in user; the same 1 MiB file and 1000-entry directory, uploaded through the API.
import { bigFile, DIRECTORY_ENTRIES, entryBody, entryName } from './filestore-fixture.js';
import { startBenchRoost } from './roost-setup.js';

const { url, token, database } = await startBenchRoost({ fileStores: { files: { read: 'sys:everyone' } } });
const call = async (path: string, init: RequestInit) => {
  const res = await fetch(url + path, { ...init, headers: { 'x-auth-token': token, ...init.headers } });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
await call('/files/big.bin/@write', { method: 'PUT', body: bigFile });
await call('/files/@newItem', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'many', type: 'd' }),
});
for (let i = 0; i < DIRECTORY_ENTRIES; i++)
  await call(`/files/many/${entryName(i)}/@write`, { method: 'PUT', body: entryBody(i) });
process.send?.({ url, token, database });
