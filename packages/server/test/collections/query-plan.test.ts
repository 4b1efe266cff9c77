import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type FieldKind, recordTable } from '../../src/collections/collection-fields.js';
import { collectionState } from '../../src/collections/collection-state.js';
import type { RecordRow } from '../../src/collections/collection-tables-schema.js';
import {
  afterCursorSql,
  cursorOf,
  fieldExpression,
  filterSql,
  parseSort,
  prepareFilter,
  sortSql,
  type StoredRecord,
} from '../../src/collections/query/index.js';
import { syncIndexes } from '../../src/collections/record-indexes.js';
import { recordAjv } from '../../src/collections/record-validator.js';
import { recordsRepo } from '../../src/collections/records-repo.js';
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

/** The plan of `query` as text: SQLite's details a line each, PostgreSQL's JSON. */
async function planOf(query: RawBuilder<unknown>): Promise<string> {
  const { dialect, db } = database;
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${query}`.execute(db);
    return rows.map((r) => r.detail).join('\n');
  }
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`EXPLAIN (FORMAT JSON) ${query}`.execute(db);
  return JSON.stringify(rows[0]?.['QUERY PLAN']);
}

/** The indexes a plan uses. */
const indexesIn = (plan: string) =>
  [...plan.matchAll(/USING (?:COVERING )?INDEX (\w+)|"Index Name":"(\w+)"/g)].map((m) => m[1] ?? m[2]!);

/** The indexes the plan of `filter` uses. */
async function indexesUsed(filter: string): Promise<string[]> {
  const { dialect } = database;
  const context = { auth: null, body: null, now: new Date() };
  const where = filterSql(prepareFilter(filter, posts, resolve), { dialect, alias: 't', context });
  return indexesIn(
    await planOf(sql`SELECT "t"."id" FROM ${sql.raw(`"${recordTable('posts')}"`)} AS "t" WHERE ${where}`),
  );
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

test('pages in the default order, by a declared index or not, first or after a cursor: in index order', async () => {
  const { dialect, db } = database;
  // The table and indexes as the collections service makes them (records-repo.ts, record-indexes.ts).
  const repo = recordsRepo(db as unknown as Kysely<Record<string, RecordRow>>, dialect);
  await repo.createTable('authors');
  const schema = { type: 'object', properties: { name: { type: 'string' } }, 'x-indexes': [['name']] };
  const rules = { list: '', view: '', create: null, update: null, delete: null };
  const stamp = '2026-01-01T00:00:00.000Z';
  const definition = { name: 'authors', schema, rules, version: 1, created: stamp, updated: stamp };
  const state = collectionState(recordAjv(), definition, resolve);
  await syncIndexes(repo, state, dialect);
  const authors: StoredRecord[] = Array.from({ length: ROWS }, (_, i) => ({
    id: `a-${String(i).padStart(5, '0')}`,
    owner: null,
    created: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    updated: stamp,
    data: { name: `name ${i % 40}` },
  }));
  await replaceRecords(database, 'authors', authors);
  await sql`ANALYZE`.execute(db);

  const sort = parseSort(undefined, state.fields);
  const context = { auth: null, body: null, now: new Date() };
  const byName = filterSql(prepareFilter('name = "name 7"', state.fields, resolve), { dialect, alias: 't', context });
  const newestFirst = [...authors].reverse();
  for (const [label, where, expected] of [
    ['no filter', sql`true`, newestFirst],
    ['name = "name 7"', byName, newestFirst.filter((a) => a.data.name === 'name 7')],
  ] as const) {
    for (const after of [null, expected[60]!]) {
      const cursor = after ? afterCursorSql(sort, cursorOf(sort, after), dialect, 't') : sql`true`;
      const query = sql`SELECT "t"."id" FROM ${sql.raw(`"${recordTable('authors')}"`)} AS "t"
        WHERE ${where} AND ${cursor} ORDER BY ${sortSql(sort, dialect, 't')} LIMIT 51`;
      const what = `${label}, ${after ? 'after a cursor' : 'first page'}`;
      const plan = await planOf(query);
      assert.ok(indexesIn(plan).length > 0, `${what}: an index is read\n${plan}`);
      // PostgreSQL's planner may rather sort a filter's hundred matches, by its costs, in a table this
      // small (in a million records it reads the index in order: bench/RESULTS.md, sixteenth session).
      if (dialect === 'sqlite' || label === 'no filter')
        assert.doesNotMatch(
          plan,
          /TEMP B-TREE FOR ORDER BY|"Node Type":"(Sort|Incremental Sort)"/,
          `${what}: no sort\n${plan}`,
        );
      // PostgreSQL reads the cursor's page as a range of the index, not from the newest record on.
      if (after && dialect === 'postgres')
        assert.match(plan, /"Index Cond":"[^"]*created/, `${what}: a range\n${plan}`);
      const { rows } = await query.execute(db);
      const start = after ? expected.indexOf(after) + 1 : 0;
      assert.deepEqual(
        (rows as { id: string }[]).map((r) => r.id),
        expected.slice(start, start + 51).map((a) => a.id),
        what,
      );
    }
  }
});
