// Roost with the signed-in user `bench` who owns 1000 items k0..k999 of the store `data`, and
// sign-up open to everyone (signupDirect), for the user, data store, peer and concurrency suites.
import { BENCH_USER, benchAccount, startBenchRoost } from './roost-setup.js';

const ITEMS = 1000;
const itemValue = (i: number) => `value of item ${i}`;

const { roost, url, token, database } = await startBenchRoost();

const post = async (path: string, body: unknown, auth: string) => {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-token': auth },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};

for (let start = 0; start < ITEMS; start += 100) {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${start + i}`, value: itemValue(start + i) }));
  await post('/data/api/newItem', { items }, token);
}

// An administrator opens sign-up, as an operator who wants self-service accounts would.
await benchAccount(roost.users, 'bench-admin', { groups: ['admins'] });
const admin = await post('/users/api/token', { identity: 'bench-admin', password: BENCH_USER.password }, '');
await post(
  '/users/api/setPermissions',
  { permissions: [{ permission: 'signupDirect', groups: ['sys:everyone'], action: 'replace' }] },
  String(admin.token),
);

process.send?.({ url, token, database });
