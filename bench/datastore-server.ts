// Roost as users run it (SQLite in a temporary data directory), with one signed-in user who
// owns 1000 items k0..k999 of the store `data`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../packages/server/src/core/config.js';
import { createRoost } from '../packages/server/src/roost.js';

const dataDir = mkdtempSync(join(tmpdir(), 'roost-bench-'));
// Rate limits would measure the limiter, not the operation.
const config = parseConfig({ dataDir, port: 0, logLevel: 'error', rateLimit: { max: 10_000_000 } });
const roost = await createRoost(config);
await roost.users.createUser({
  name: 'bench', email: 'bench@example.com', password: 'bench-password', realname: 'Bench', data: '', notify: false, groups: [], state: 'active', pending: null,
});
const url = await roost.listen({ port: 0, host: '127.0.0.1' });
const post = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) }, body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
};
const { token } = (await post('/users/api/token', { identity: 'bench', password: 'bench-password' })) as { token: string };
for (let start = 0; start < 1000; start += 100) {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${start + i}`, value: `value of item ${start + i}` }));
  await post('/data/api/newItem', { items }, token);
}
process.send?.({ url, token });
