// Roost with the collection `scale` of `BENCH_RECORDS` records (1000 by default), for
// suite-collections-scale.ts, on SQLite or, with `BENCH_POSTGRES=1`, on PostgreSQL. Roost makes
// the collection when it starts (its table, and the index of `x-indexes` on `category`); the
// records are then written straight into its table by one SQL statement, as pages-server.ts fills
// its store (the HTTP path would take an hour for a million), and PostgreSQL is ANALYZEd, as its
// autovacuum would soon do, and told to scan it without parallel workers. Record i: `category`
// and `batch` are `c<i mod K>` and `b<i mod K>` with K = records / 100, so that each value
// matches 100 records whatever the size; `category` is indexed, `batch` is not. Ids sort as
// records were made, one a second.
import { sql } from 'kysely';
import { startBenchRoost } from './roost-setup.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1000);
const VALUES = RECORDS / 100;
/** 2026-01-01T00:00:00Z: record i was made i seconds later. */
const EPOCH = Date.UTC(2026, 0, 1);

const SCALE_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 200 },
    body: { type: 'string', maxLength: 10_000 },
    category: { type: 'string', maxLength: 50 },
    batch: { type: 'string', maxLength: 50 },
    priority: { type: 'integer', minimum: 0, maximum: 5 },
    score: { type: 'number' },
  },
  required: ['title', 'category'],
  'x-indexes': [['category']],
};

const anyone = { list: '', view: '', create: '', update: '', delete: '' };
const { roost, url, token, database } = await startBenchRoost({
  collections: { scale: { schema: SCALE_SCHEMA, rules: anyone } },
});
const identity = await fetch(`${url}/users/api/identity`, { headers: { authorization: `Bearer ${token}` } });
const { id: owner } = (await identity.json()) as { id: string };

const began = Date.now();
// Numbers as literals: better-sqlite3 binds a parameter number as a real ('c' || 7.0 is 'c7.0').
const values = sql.lit(VALUES);
const last = sql.lit(RECORDS - 1);
const body = 'A record of a large collection, a sentence long.';
if (database) {
  const millis = sql`(${sql.lit(EPOCH)}::bigint + i::bigint * 1000)`;
  const hex = (value: unknown, width: number) => sql`lpad(to_hex(${value}), ${sql.lit(width)}, '0')`;
  const id = sql`${hex(sql`${millis} >> 16`, 8)} || '-' || ${hex(sql`${millis} & 65535`, 4)} || '-7000-8000-' ||
    ${hex(sql`i`, 12)}`;
  await sql`insert into records_scale (id, owner, created, updated, data)
    select ${id},
      ${owner},
      to_char(to_timestamp(${millis} / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created,
      to_char(to_timestamp(${millis} / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated,
      jsonb_build_object('title', 'Record ' || i, 'body', ${body}::text, 'category', 'c' || (i % ${values}),
        'batch', 'b' || (i % ${values}), 'priority', i % 6, 'score', (i % 100) * 0.5)
    from generate_series(0, ${last}) as g(i)`.execute(roost.db);
  await sql`analyze records_scale`.execute(roost.db);
  // A full scan without parallel workers: their CPU time would escape lib.ts's count (they are
  // backends of their own, gone before a slice's end), and one core is what a scan costs here.
  await sql`alter table records_scale set (parallel_workers = 0)`.execute(roost.db);
} else {
  const millis = sql`(${sql.lit(EPOCH)} + i * 1000)`;
  const created = sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${millis} / 1000.0, 'unixepoch')`;
  await sql`insert into records_scale (id, owner, created, updated, data)
    select printf('%08x-%04x-7000-8000-%012x', ${millis} >> 16, ${millis} & 65535, i), ${owner}, ${created}, ${created},
      json_object('title', 'Record ' || i, 'body', ${body}, 'category', 'c' || (i % ${values}),
        'batch', 'b' || (i % ${values}), 'priority', i % 6, 'score', (i % 100) * 0.5)
    from (with recursive n(i) as (select 0 union all select i + 1 from n where i < ${last}) select i from n)`.execute(
    roost.db,
  );
}
console.error(`collections-scale-server: ${RECORDS} records in ${((Date.now() - began) / 1000).toFixed(1)} s`);

process.send?.({ url, token, database, records: RECORDS, values: VALUES });
