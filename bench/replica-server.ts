// Roost on a PostgreSQL primary of the replicas suite's own (suite-replicas.ts), with a read
// replica when `BENCH_REPLICA_URL` is set: the user `bench` owns 1000 items k0..k999 of `data`,
// and a second user, `reader`, reads them (another user's items: reads a replica may serve).
import { BENCH_USER, benchAccount, startBenchRoost } from './roost-setup.js';

const primary = process.env.BENCH_PRIMARY_URL;
if (!primary) throw new Error('BENCH_PRIMARY_URL is not set (suite-replicas.ts starts this script)');
const replica = process.env.BENCH_REPLICA_URL;
const { roost, url, token } = await startBenchRoost({
  databaseUrl: primary,
  ...(replica ? { databaseReplicaUrls: [replica] } : {}),
});

const post = async (path: string, body: unknown, auth: string) => {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-token': auth },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};

for (let start = 0; start < 1000; start += 100) {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${start + i}`, value: `value of item ${start + i}` }));
  await post('/data/api/newItem', { items }, token);
}
await benchAccount(roost.users, 'reader');
const reader = await post('/users/api/token', { identity: 'reader', password: BENCH_USER.password }, '');

process.send?.({ url, token: String(reader.token), writer: token, database: new URL(primary).pathname.slice(1) });
