import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authors, posts, resolve } from '../../../test/collections/collections-fixture.js';
import {
  compareRecords,
  constantAnswer,
  cursorOf,
  matchesFilter,
  parseSort,
  prepareFilter,
  type QueryContext,
} from './index.js';
import { compareCodePoints, type StoredRecord } from './query-values.js';
import { afterCursorSql } from './cursor.js';

const record = (id: string, data: Record<string, unknown>, owner: string | null = null): StoredRecord => ({
  id,
  owner,
  created: `2026-01-0${id.length}T00:00:00.000Z`,
  updated: '2026-02-01T00:00:00.000Z',
  data,
});

const records = [
  record(
    'a',
    {
      title: 'Road trip',
      n: 2,
      flag: true,
      tags: ['x', 'Y'],
      scores: [1, 2.5],
      address: { city: 'Oslo', zip: 150 },
      meta: { a: 'x', n: 1, o: { p: true } },
      author: 'ada',
    },
    'u1',
  ),
  record('b', { title: null, n: -1, flag: false, tags: [], address: null, meta: { a: 1 }, author: 'nobody' }),
  record('c', { title: 'ÉCOLE road', tags: null, meta: null, author: 'bob' }, 'u2'),
  record('d', { title: '', n: 0, address: { city: null }, meta: 'x' }),
];
const people: Record<string, StoredRecord> = {
  ada: record('ada', { name: 'Ada', rank: 3, tags: ['math'] }),
  bob: record('bob', { name: 'Bob' }),
};
const lookup = (collection: string, id: string) =>
  collection === authors.name && Object.hasOwn(people, id) ? people[id] : undefined;
const context: QueryContext = {
  auth: { id: 'u1', name: 'Road trip', groups: ['g1', 'x'] },
  body: { title: 'ÉCOLE road', n: 'not a number', tags: ['x'] },
  now: new Date('2026-01-03T12:00:00.000Z'),
};
const guest: QueryContext = { auth: null, body: null, now: context.now };

const matching = (text: string, ctx: QueryContext = context) => {
  const checked = prepareFilter(text, posts, resolve);
  return records
    .filter((r) => matchesFilter(checked, r, ctx, lookup))
    .map((r) => r.id)
    .join('');
};

test('the semantics table of docs/collection-queries.md', () => {
  const table: [string, string, QueryContext?][] = [
    // Missing ≡ null; = null tests null; = with one null side is false; != is the negation of =.
    ['title = null', 'b'],
    ['title != null', 'acd'],
    ['title = "Road trip"', 'a'],
    ['title != "Road trip"', 'bcd'],
    ['n = null', 'c'],
    ['address.city = null', 'bcd'],
    // Ordering with null is false; text by code point; numbers as numbers.
    ['n > -1', 'ad'],
    ['n <= 0', 'bd'],
    ['title < "a"', 'ad'],
    ['title > "Road trip"', 'c'],
    // ~ contains, ASCII letters in either case only; !~ its negation (true for null).
    ['title ~ "ROAD"', 'ac'],
    ['title ~ "école"', ''],
    ['title ~ "É"', 'c'],
    ['title ~ ""', 'acd'],
    ['title !~ "road"', 'bd'],
    ['title ~ "%"', ''],
    // Booleans.
    ['flag = true', 'a'],
    ['flag != true', 'bcd'],
    ['flag = false', 'b'],
    // Any-of: at least one element; false for empty and null arrays.
    ['tags ?= "x"', 'a'],
    ['tags ?= "y"', ''],
    ['tags ?~ "y"', 'a'],
    ['tags ?!= "x"', 'a'],
    ['tags ?!~ "q"', 'a'],
    ['scores ?> 2', 'a'],
    ['tags = null', 'cd'],
    ['tags != null', 'ab'],
    // Objects and json paths.
    ['address = null', 'bc'],
    ['meta.a = "x"', 'a'],
    ['meta.a = 1', 'b'],
    ['meta.a != "x"', 'bcd'],
    ['meta.o.p = true', 'a'],
    ['meta.o = null', 'bcd'],
    ['meta = null', 'c'],
    ['meta.n = 1', 'a'],
    ['meta = "x"', 'd'],
    // Relations: a missing related record reads as null.
    ['author.name = "Ada"', 'a'],
    ['author.name = null', 'bd'],
    ['author.name != "Ada"', 'bcd'],
    ['author.tags ?= "math"', 'a'],
    ['author.rank >= 3', 'a'],
    // Variables: known before any record; a value of the wrong type is null.
    ['owner = @request.auth.id', 'a'],
    // A null variable equals nothing: an anonymous caller owns no record, not those nobody owns.
    ['owner = @request.auth.id', '', guest],
    ['owner != @request.auth.id', 'abcd', guest],
    ['@request.auth.id = null', 'abcd', guest],
    ['@request.auth.id != null', '', guest],
    ['@request.auth.id != null && owner = @request.auth.id', '', guest],
    ['@request.auth.groups ?= "g1"', 'abcd'],
    ['@request.auth.groups ?= "g1"', '', guest],
    ['@request.auth.groups ?= title', ''],
    ['@request.auth.groups ?!= title', 'abcd'],
    ['tags ?= @request.auth.name', ''],
    ['title = @request.auth.name', 'a'],
    ['title = @request.body.title', 'c'],
    ['n = @request.body.n', ''], // the body's text is no number: null, which equals nothing
    ['@request.body.tags ?= "x"', 'abcd'],
    ['created >= @todayStart && created <= @todayEnd', ''],
    ['created < @now', 'abcd'],
    ['created > @yesterday', ''],
    // Junctions.
    ['title = null || n = 0 && title = ""', 'bd'],
    ['(title = null || n = 0) && title = ""', 'd'],
    ['1 = 1', 'abcd'],
    ['null = null && null != 1', 'abcd'],
  ];
  for (const [text, expected, ctx] of table) assert.equal(matching(text, ctx), expected, text);
});

test('a filter of constants is decided for its caller; one that reads the record is not', () => {
  const signedIn = prepareFilter('@request.auth.id != null', posts, resolve);
  assert.equal(constantAnswer(signedIn, context), true);
  assert.equal(constantAnswer(signedIn, guest), false);
  const team = prepareFilter('@request.auth.groups ?= "x" || @request.auth.id = "u2"', posts, resolve);
  assert.equal(constantAnswer(team, context), true);
  assert.equal(constantAnswer(prepareFilter('owner = @request.auth.id', posts, resolve), context), null);
  assert.equal(constantAnswer(prepareFilter('@request.auth.id != null && n > 1', posts, resolve), context), null);
});

test('text orders by code point, not by UTF-16 unit', () => {
  const sorted = ['\u{1F600}', '\uFF21', 'z', 'a', 'Z', '', 'é', '\u{10000}'].sort(compareCodePoints);
  assert.deepEqual(sorted, ['', 'Z', 'a', 'z', 'é', '\uFF21', '\u{10000}', '\u{1F600}']);
});

test('sorts: nulls first ascending, last descending, id last', () => {
  const sort = parseSort('n,-title', posts);
  assert.deepEqual(
    sort.keys.map((k) => k.path.join('.')),
    ['n', 'title', 'id'],
  );
  assert.deepEqual(
    [...records].sort(compareRecords(sort)).map((r) => r.id),
    ['c', 'b', 'd', 'a'],
  );
  const down = parseSort('-n', posts);
  assert.deepEqual(
    [...records].sort(compareRecords(down)).map((r) => r.id),
    ['a', 'd', 'b', 'c'],
  );
  assert.deepEqual(
    parseSort(undefined, posts).keys.map((k) => `${k.descending ? '-' : ''}${k.path[0]}`),
    ['-created', '-id'],
  );
});

test('sorts that cannot be: unknown, unordered, twice, too many', () => {
  const code = (text: string) => {
    try {
      parseSort(text, posts);
      return 'accepted';
    } catch (err) {
      return `${(err as { code: string }).code}: ${(err as { fields: string[][] }).fields[0]?.[1]}`;
    }
  };
  assert.match(code('title,nope'), /^invalid_sort: unknown field nope in posts at character 7$/);
  assert.match(code('tags'), /^invalid_sort: tags is an array: it has no order/);
  assert.match(code('meta.a'), /^invalid_sort: meta.a is a path into a json field/);
  assert.match(code('author.name'), /^invalid_sort: unknown field author.name/);
  assert.match(code('title,-title'), /^invalid_sort: title is named twice at character 7/);
  assert.match(code('title;drop'), /^invalid_sort: "title;drop" is not a field name/);
  assert.match(code('a,b,c,d,e,f,g,h,i'), /^sort_too_long/);
  assert.equal(code('-address.city,+n,flag,i,created,updated,owner,id'), 'accepted');
});

test('a cursor of another sort, collection or shape is invalid_cursor', () => {
  const sort = parseSort('title', posts);
  const good = cursorOf(sort, records[0]!);
  afterCursorSql(sort, good, 'sqlite', 't');
  const others = [
    cursorOf(parseSort('-title', posts), records[0]!),
    cursorOf(parseSort('name', authors), people.ada!),
    '',
    'not base64!',
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from(JSON.stringify(['posts', 'title,id', 1, 'a'])).toString('base64url'),
    Buffer.from(JSON.stringify(['posts', 'title,id', 'x', null])).toString('base64url'),
    Buffer.from(JSON.stringify(['posts', 'title,id', '\u0000', 'a'])).toString('base64url'),
    'A'.repeat(5000),
  ];
  for (const cursor of others)
    assert.throws(() => afterCursorSql(sort, cursor, 'postgres', 't'), { code: 'invalid_cursor' }, cursor);
});
