import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { isRoostError } from '../../src/core/errors.js';
import {
  afterCursorSql,
  cursorOf,
  filterSql,
  parseSort,
  prepareFilter,
  printFilter,
  type QueryContext,
  sortSql,
} from '../../src/collections/query/index.js';
import { posts, resolve } from './collections-fixture.js';
import {
  createRecordTable,
  openRecordsDatabase,
  type RecordsDatabase,
  replaceRecords,
  selectRecords,
} from './record-tables.js';

/**
 * Hostile text in every place a caller puts text: values are parameters and match only
 * themselves; names, operators, sorts and cursors that are not the language's are errors. No
 * hostile text reaches the SQL text.
 */

const HOSTILE = [
  "'",
  '"',
  '\\',
  "'; DROP TABLE records_posts; --",
  '"; DROP TABLE "records_posts"; --',
  "') OR 1=1 --",
  '$1',
  '$2::text',
  '?',
  '?1',
  ':name',
  '$."title"',
  '$[0]',
  "'$.a'",
  '->>',
  '%',
  '_',
  '/*',
  '*/',
  '--',
  'é😀',
  'x\u2028y',
];
const REFUSED_TEXT = ['\u0000', 'a\u0000b', '\ud800', 'x\udc00'];

let database: RecordsDatabase;
before(async () => {
  database = await openRecordsDatabase();
  for (const collection of ['posts', 'authors', 'orgs']) await createRecordTable(database, collection);
  await replaceRecords(
    database,
    'posts',
    HOSTILE.map((title, i) => ({
      id: `p-${i}`,
      owner: title,
      created: '2026-01-01T00:00:00.000Z',
      updated: '2026-01-01T00:00:00.000Z',
      data: { title, tags: [title], meta: { a: title } },
    })),
  );
});
after(() => database?.close());

const guest: QueryContext = { auth: null, body: null, now: new Date('2026-01-01T00:00:00Z') };

/** The ids `filter` finds, and the SQL text it ran. */
async function run(filter: string, context: QueryContext = guest, sort = 'id') {
  const { dialect, db } = database;
  const where = filterSql(prepareFilter(filter, posts, resolve), { dialect, alias: 't', context });
  const compiled = sql`SELECT 1 FROM "records_posts" AS "t" WHERE ${where}`.compile(db);
  const found = await selectRecords(database, 'posts', where, sortSql(parseSort(sort, posts), dialect, 't'));
  return { ids: found.map((r) => r.id), text: compiled.sql, parameters: compiled.parameters as readonly unknown[] };
}

function refusedAs(code: string, work: () => unknown) {
  assert.throws(work, (err) => isRoostError(err) && err.code === code && err.kind === 'invalid');
}

test('hostile values are parameters that match only themselves, in every value position', async () => {
  for (const [i, value] of HOSTILE.entries()) {
    const literal = printFilter({
      type: 'compare',
      op: '=',
      left: { type: 'field', path: ['title'], at: 0 },
      right: { type: 'literal', value, at: 0 },
      at: 0,
    }).slice('title = '.length);
    const plain = await run('title = "plain" && tags ?= "plain" && meta.a = "plain" && owner = "plain"');
    const hostile = await run(`title = ${literal} && tags ?= ${literal} && meta.a = ${literal} && owner = ${literal}`);
    assert.equal(hostile.text, plain.text, 'a value changes nothing in the SQL text');
    assert.deepEqual(hostile.parameters.filter((p) => p === value || p === JSON.stringify(value)).length, 4);
    for (const filter of [
      `title = ${literal}`,
      `${literal} = title`,
      `tags ?= ${literal}`,
      `meta.a = ${literal}`,
      `owner = ${literal}`,
      `title = '${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
    ]) {
      assert.deepEqual((await run(filter)).ids, [`p-${i}`], filter);
    }
    const contains = await run(`title ~ ${literal}`);
    assert.ok(contains.ids.includes(`p-${i}`), `title ~ ${literal}`);
  }
  const { ids } = await run('title != null');
  assert.equal(ids.length, HOSTILE.length, 'the table is whole');
});

test('hostile values from the context are parameters too', async () => {
  for (const [i, value] of HOSTILE.entries()) {
    const context: QueryContext = {
      auth: { id: value, name: value, groups: [value] },
      body: { title: value },
      now: guest.now,
    };
    for (const filter of [
      'owner = @request.auth.id',
      'title = @request.auth.name',
      'title = @request.body.title',
      '@request.auth.groups ?= title',
      'tags ?= @request.auth.id',
    ])
      assert.deepEqual((await run(filter, context)).ids, [`p-${i}`], `${filter} with ${JSON.stringify(value)}`);
  }
  // Text no database can hold as a parameter is null in the context: it matches no record.
  for (const value of REFUSED_TEXT) {
    const context: QueryContext = {
      auth: { id: value, name: value, groups: [value] },
      body: { title: value },
      now: guest.now,
    };
    assert.deepEqual((await run('owner = @request.auth.id || title = @request.body.title', context)).ids, []);
  }
});

test('hostile names, operators and text around them are invalid_filter', () => {
  const filters = [
    ...HOSTILE.map((h) => `title = 1 ${h}`),
    ...HOSTILE.map((h) => `${h} = 1`),
    ...HOSTILE.map((h) => `title ${h} "x"`),
    // `_` is a name: meta._ is a path into the json field.
    ...HOSTILE.filter((h) => h !== '_').map((h) => `meta.${h} = 1`),
    ...HOSTILE.map((h) => `@request.body.${h} = 1`),
    ...REFUSED_TEXT.map((h) => `title = ${JSON.stringify(h)}`),
    ...REFUSED_TEXT.map((h) => `title = "${h}"`),
    'title = "x" ; DROP TABLE records_posts',
    'title = "x" -- comment',
    'title = "x" /* comment */',
    'meta."a" = 1',
    'meta.$a = 1',
    'meta[0] = 1',
    'records_posts.title = "x"',
    't.title = "x"',
    'title = x"',
  ];
  for (const filter of filters)
    assert.throws(
      () => prepareFilter(filter, posts, resolve),
      (err) => isRoostError(err) && err.code === 'invalid_filter',
      JSON.stringify(filter),
    );
});

test('hostile sorts are invalid_sort; hostile cursors are invalid_cursor or parameters', async () => {
  for (const h of HOSTILE) {
    refusedAs('invalid_sort', () => parseSort(`title,${h}`, posts));
    refusedAs('invalid_sort', () => parseSort(`${h}title`, posts));
  }
  const sort = parseSort('title', posts);
  for (const h of [...HOSTILE, ...REFUSED_TEXT]) {
    refusedAs('invalid_cursor', () => afterCursorSql(sort, h, database.dialect, 't'));
    const forged = Buffer.from(JSON.stringify(['posts', 'title,id', h, h])).toString('base64url');
    if (REFUSED_TEXT.includes(h))
      refusedAs('invalid_cursor', () => afterCursorSql(sort, forged, database.dialect, 't'));
    else {
      const after = afterCursorSql(sort, forged, database.dialect, 't');
      await selectRecords(database, 'posts', after, sortSql(sort, database.dialect, 't'));
    }
  }
  // A cursor of a record holding hostile values walks on from it.
  const all = await selectRecords(database, 'posts', sql`true`, sortSql(sort, database.dialect, 't'));
  const rest = await selectRecords(
    database,
    'posts',
    afterCursorSql(sort, cursorOf(sort, all[0]!), database.dialect, 't'),
    sortSql(sort, database.dialect, 't'),
  );
  assert.deepEqual(
    rest.map((r) => r.id),
    all.slice(1).map((r) => r.id),
  );
});
