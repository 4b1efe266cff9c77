// Roost for the hooks suite (issue 40, "the cost of a registered no-op before-hook"): the user
// `bench` with the items k0..k999 of the store `data` and the collection `posts` (ten fields,
// open rules); with `BENCH_HOOKS=1`, an extension registers a before-hook that does nothing on
// `item.set` (setItem) and on `record.create`, for every store and collection.
import { defineExtension } from '../packages/server/src/roost.js';
import { POSTS_SCHEMA } from './collections-fixtures.js';
import { startBenchRoost } from './roost-setup.js';

const noOp = defineExtension((roost) => {
  roost.hooks.before('item.set', () => {});
  roost.hooks.before('record.create', () => {});
});
const hooked = process.env.BENCH_HOOKS === '1';
const anyone = { list: '', view: '', create: '', update: '', delete: '' };
const { url, token, database } = await startBenchRoost(
  { collections: { posts: { schema: POSTS_SCHEMA, rules: anyone } } },
  hooked ? { extensions: [noOp] } : {},
);

for (let start = 0; start < 1000; start += 100) {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${start + i}`, value: `value of item ${start + i}` }));
  const res = await fetch(`${url}/data/api/newItem`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-token': token },
    body: JSON.stringify({ items }),
  });
  if (!res.ok) throw new Error(`newItem: ${res.status} ${await res.text()}`);
}

process.send?.({ url, token, database });
