import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { type FieldKind, recordTable } from '../../src/collections/collection-fields.js';
import { fieldExpression, filterSql, prepareFilter, type StoredRecord } from '../../src/collections/query/index.js';
import { posts, resolve } from './collections-fixture.js';
import { createRecordTable, openRecordsDatabase, type RecordsDatabase, replaceRecords } from './record-tables.js';

/**
 * An index made with fieldExpression serves an equality filter on that field: the filter's SQL
 * spells the field exactly as the index does (a text field, a number field, a nested member), on
 * this pass's database, as its planner says.
 */

const ROWS = 4000;
const INDEXED: [string, FieldKind, string][] = [
  ['title', 'text', 'title = "title 1234"'],
  ['n', 'number', 'n = 1234'],
  ['address.city', 'text', 'address.city = "city 77"'],
];

let database: RecordsDatabase;
before(async () => {
  database = await openRecordsDatabase();
  await createRecordTable(database, 'posts');
  const records: StoredRecord[] = Array.from({ length: ROWS }, (_, i) => ({
    id: `p-${String(i).padStart(5, '0')}`,
    owner: null,
    created: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    updated: '2026-02-01T00:00:00.000Z',
    data: { title: `title ${i}`, n: i, address: { city: `city ${i % 500}` }, flag: i % 2 === 0 },
  }));
  await replaceRecords(database, 'posts', records);
  for (const [path, kind] of INDEXED) {
    const name = sql.raw(`"posts_${path.replace('.', '_')}"`);
    const expression = fieldExpression(database.dialect, path.split('.'), kind);
    await sql`CREATE INDEX ${name} ON ${sql.raw(`"${recordTable('posts')}"`)} (${expression})`.execute(database.db);
  }
  await sql`ANALYZE`.execute(database.db);
});
after(() => database?.close());

/** The indexes the plan of `filter` uses. */
async function indexesUsed(filter: string): Promise<string[]> {
  const { dialect, db } = database;
  const context = { auth: null, body: null, now: new Date() };
  const where = filterSql(prepareFilter(filter, posts, resolve), { dialect, alias: 't', context });
  const query = sql`SELECT "t"."id" FROM ${sql.raw(`"${recordTable('posts')}"`)} AS "t" WHERE ${where}`;
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${query}`.execute(db);
    return rows.flatMap((r) => [...r.detail.matchAll(/USING INDEX (\w+)/g)].map((m) => m[1]!));
  }
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`EXPLAIN (FORMAT JSON) ${query}`.execute(db);
  return [...JSON.stringify(rows[0]?.['QUERY PLAN']).matchAll(/"Index Name":"(\w+)"/g)].map((m) => m[1]!);
}

for (const [path, kind, filter] of INDEXED)
  test(`an equality filter on the ${kind} field ${path} uses its expression index`, async () => {
    assert.deepEqual(await indexesUsed(filter), [`posts_${path.replace('.', '_')}`]);
  });

test('the indexed filters find their records', async () => {
  const { dialect, db } = database;
  const context = { auth: null, body: null, now: new Date() };
  for (const [, , filter] of INDEXED) {
    const where = filterSql(prepareFilter(filter, posts, resolve), { dialect, alias: 't', context });
    // In Kysely's query builder, as the collections service will use it.
    const rows = await db.selectFrom('records_posts as t').select('t.id').where(where).execute();
    assert.equal(rows.length, filter.startsWith('address') ? ROWS / 500 : 1, filter);
  }
});

test('a filter on a field without an index scans', async () => {
  assert.deepEqual(await indexesUsed('flag = true && title ~ "1234"'), []);
});
