// Roost with a store of `BENCH_ITEMS` items (1000 by default) for the pages suite: keys
// k0000000, k0000001, ... with every tenth item the signed-in user's (`bench`) and the others
// another user's, written straight into the table by one SQL statement (the HTTP path would
// take an hour for a million); the counts are kept by the table's triggers all the same. On
// SQLite, or on PostgreSQL with `BENCH_POSTGRES=1`.
import { sql } from 'kysely';
import { benchAccount, startBenchRoost } from './roost-setup.js';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);

const { roost, url, token, database } = await startBenchRoost();
const other = await benchAccount(roost.users, 'bench-other');
const identity = await fetch(`${url}/users/api/identity`, { headers: { authorization: `Bearer ${token}` } });
const { id: bench } = (await identity.json()) as { id: string };

const began = Date.now();
const now = Date.now();
// A row per number 0..ITEMS-1, from a recursive query (SQLite) or generate_series (PostgreSQL).
const numbers = database
  ? sql`select i from generate_series(0, ${ITEMS - 1}) as g(i)`
  : sql`select i from (with recursive n(i) as (select 0 union all select i + 1 from n where i < ${ITEMS - 1})
      select i from n)`;
const padded = database ? sql`lpad(i::text, 7, '0')` : sql`substr('000000' || i, -7, 7)`;
await sql`insert into datastore_items (store, key, value, number, owner, updated)
  select 'data', 'k' || ${padded}, 'value of item ' || i, null,
    case when i % 10 = 0 then ${bench} else ${other.id} end, ${now}
  from (${numbers}) as numbers`.execute(roost.db);
console.error(`pages-server: ${ITEMS} items in ${((Date.now() - began) / 1000).toFixed(1)} s`);

process.send?.({ url, token, database, items: ITEMS });
