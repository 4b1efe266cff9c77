// Roost with one signed-in user who owns 1000 items k0..k999 of the store `data`.
import { startBenchRoost } from './roost-setup.js';
import './cpu-probe.js';

const { url, token } = await startBenchRoost();
for (let start = 0; start < 1000; start += 100) {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${start + i}`, value: `value of item ${start + i}` }));
  const res = await fetch(`${url}/data/api/newItem`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-auth-token': token }, body: JSON.stringify({ items }),
  });
  if (!res.ok) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
}
process.send?.({ url, token });
