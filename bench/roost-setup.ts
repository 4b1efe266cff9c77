// Roost as the benchmarks run it: SQLite in a temporary data directory, listening on 127.0.0.1,
// no rate limits (they would measure the limiter), and one signed-in user `bench`: what every
// bench server script starts from.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, type ConfigInput } from '../packages/server/src/core/config.js';
import { createRoost, type Roost } from '../packages/server/src/roost.js';

export async function startBenchRoost(input: ConfigInput = {}): Promise<{ roost: Roost; url: string; token: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'roost-bench-'));
  const config = parseConfig({ dataDir, port: 0, logLevel: 'error', rateLimit: { max: 10_000_000 }, ...input });
  const roost = await createRoost(config);
  await roost.users.createUser({
    name: 'bench', email: 'bench@example.com', password: 'bench-password', realname: 'Bench', data: '', notify: false, groups: [], state: 'active', pending: null,
  });
  const url = await roost.listen({ port: 0, host: '127.0.0.1' });
  const res = await fetch(`${url}/users/api/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'bench', password: 'bench-password' }),
  });
  const { token } = (await res.json()) as { token: string };
  return { roost, url, token };
}
