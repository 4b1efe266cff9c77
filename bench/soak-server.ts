// Roost for the soak (SQLite in a temporary directory, as the benchmarks run it) with one user
// per connection; it answers the parent's `memory` messages with its memory after a full
// garbage collection (run with --expose-gc), so growth means memory kept, not garbage not yet
// collected.
import { benchAccount, startBenchRoost } from './roost-setup.js';

const connections = Number(process.env.SOAK_CONNECTIONS ?? 100);
const { roost, url } = await startBenchRoost();
const tokens: string[] = [];
for (let i = 0; i < connections; i++) {
  const name = `soak${i}`;
  await benchAccount(roost.users, name, { password: 'soak-password' });
  const res = await fetch(`${url}/users/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: name, password: 'soak-password' }),
  });
  tokens.push(((await res.json()) as { token: string }).token);
}

process.on('message', (message) => {
  if (message !== 'memory') return;
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ memory: { rss, heapUsed } });
});
process.send?.({ url, tokens, dataDir: roost.config.dataDir });
