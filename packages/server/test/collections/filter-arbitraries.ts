import fc from 'fast-check';
import type { FilterAst, Operand, Operator, QueryContext, StoredRecord } from '../../src/collections/query/index.js';

/**
 * Random records of the fixture's collections (collections-fixture.ts) and random filters that
 * check against them, for the fuzz test: small pools of values, so that comparisons meet equal
 * values, nulls and missing members often.
 */

const TEXTS = [
  '',
  'a',
  'A',
  'ab',
  'aB',
  'B',
  'road',
  'Road trip',
  'é',
  'É',
  'ß',
  'İ',
  '😀',
  '\uFF21',
  'z😀',
  '\u{10000}',
  'a%',
  'a_b',
  "it's",
  '"q"',
  '\\',
  ' ',
  'x y',
  '$1',
  '?',
  '\'; DROP TABLE "records_posts"; --',
  '$."a"',
  'u1',
  'g1',
];
const text = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TEXTS) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.constantFrom('a', 'B', 'é', '😀', '\uFF21', '%', "'", ' '), maxLength: 4 }),
  },
);
const number = fc.oneof(
  fc.constantFrom(0, 1, -1, 2, 2.5, -2.5, 0.1, 0.30000000000000004, 1e-7, 1e21, -1e21, 123456789, 2 ** 53 - 1),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((n) => (n === 0 ? 0 : n)),
);
const DATES = [
  '2026-01-02T11:59:59.999Z',
  '2026-01-03T00:00:00.000Z',
  '2026-01-03T12:00:00.000Z',
  '2026-01-04T01:00:00.000Z',
];
const date = fc.oneof(
  fc.constantFrom(...DATES),
  fc
    .integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-01-06T00:00:00Z') })
    .map((ms) => new Date(ms).toISOString()),
);
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null, freq: 4 });
const jsonScalar = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const json = fc.oneof(
  jsonScalar,
  fc.record(
    { a: jsonScalar, b: fc.oneof(jsonScalar, fc.record({ c: jsonScalar }, { requiredKeys: [] })) },
    { requiredKeys: [] },
  ),
  fc.array(jsonScalar, { maxLength: 2 }),
);

const AUTHOR_IDS = ['au1', 'au2', 'au3'];
const ORG_IDS = ['o1', 'o2'];

const postData = fc.record(
  {
    title: nullable(text),
    n: nullable(number),
    i: nullable(fc.integer({ min: -3, max: 3 })),
    flag: nullable(fc.boolean()),
    tags: nullable(fc.array(text, { maxLength: 3 })),
    scores: nullable(fc.array(number, { maxLength: 3 })),
    items: nullable(fc.array(fc.record({ x: text }), { maxLength: 1 })),
    address: nullable(fc.record({ city: nullable(text), zip: nullable(number) }, { requiredKeys: [] })),
    meta: json,
    author: nullable(fc.constantFrom(...AUTHOR_IDS, 'gone')),
    reviewer: nullable(fc.constantFrom('u1', 'u2')),
    when: nullable(date),
  },
  { requiredKeys: [] },
);

/** `count` records with unique ids (random, so that their order is not the order of insertion). */
const recordsOf = (data: fc.Arbitrary<Record<string, unknown>>, ids: fc.Arbitrary<string[]>) =>
  ids.chain((list) =>
    fc.tuple(
      ...list.map((id) =>
        fc.record({
          id: fc.constant(id),
          owner: nullable(fc.constantFrom('u1', 'u2', 'u3')),
          created: fc.oneof(fc.constantFrom(...DATES), date),
          updated: date,
          data,
        }),
      ),
    ),
  ) as fc.Arbitrary<StoredRecord[]>;

const uniqueIds = (max: number) =>
  fc
    .uniqueArray(fc.stringMatching(/^[0-9a-f]{1,3}$/), { minLength: 5, maxLength: max, size: 'max' })
    .map((ids) => ids.map((id) => `p-${id}`));

/** The world of one run: posts, their authors, the authors' orgs. */
export const world = fc.record({
  posts: recordsOf(postData, uniqueIds(40)),
  authors: recordsOf(
    fc.record(
      {
        name: nullable(text),
        rank: nullable(number),
        tags: nullable(fc.array(text, { maxLength: 2 })),
        org: nullable(fc.constantFrom(...ORG_IDS, 'gone')),
      },
      { requiredKeys: [] },
    ),
    fc.constant(AUTHOR_IDS),
  ),
  orgs: recordsOf(fc.record({ title: nullable(text) }, { requiredKeys: [] }), fc.constant(ORG_IDS)),
});

export const context: fc.Arbitrary<QueryContext> = fc.record({
  auth: nullable(
    fc.record({ id: fc.constantFrom('u1', 'u2', 'nobody'), name: text, groups: fc.array(text, { maxLength: 3 }) }),
  ),
  body: nullable(
    fc.record(
      {
        title: fc.oneof(text, fc.constant(5)),
        n: fc.oneof(number, fc.constant('x')),
        tags: fc.array(text, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
  ),
  now: fc.constantFrom(...DATES, '2026-01-05T23:59:59.999Z').map((d) => new Date(d)),
});

const field = (path: string) => fc.constant<Operand>({ type: 'field', path: path.split('.'), at: 0 });
const variable = (path: string) => fc.constant<Operand>({ type: 'variable', path: path.split('.'), at: 0 });
const literal = <T extends string | number | boolean | null>(arbitrary: fc.Arbitrary<T>) =>
  arbitrary.map((value): Operand => ({ type: 'literal', value, at: 0 }));

const TEXT_FIELDS = [
  'title',
  'address.city',
  'when',
  'id',
  'owner',
  'created',
  'author',
  'author.name',
  'author.org.title',
  'author.id',
];
const textOperand = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TEXT_FIELDS).chain(field) },
  { weight: 3, arbitrary: literal(fc.oneof(text, fc.constantFrom(...DATES))) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        'request.auth.id',
        'request.auth.name',
        'request.body.title',
        'now',
        'todayStart',
        'todayEnd',
        'yesterday',
        'tomorrow',
      )
      .chain(variable),
  },
);
const numberOperand = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('n', 'i', 'address.zip', 'author.rank').chain(field) },
  { weight: 3, arbitrary: literal(number) },
  { weight: 1, arbitrary: variable('request.body.n') },
);
const booleanOperand = fc.oneof(field('flag'), literal(fc.boolean()));

const compare = (op: Operator, left: Operand, right: Operand): FilterAst => ({
  type: 'compare',
  op,
  left,
  right,
  at: 0,
});
const scalar = (ops: Operator[], operand: fc.Arbitrary<Operand>) =>
  fc.tuple(fc.constantFrom(...ops), operand, operand).map(([op, l, r]) => compare(op, l, r));
const TEXT_OPS: Operator[] = ['=', '!=', '>', '>=', '<', '<=', '~', '!~'];
const ORDER_OPS: Operator[] = ['=', '!=', '>', '>=', '<', '<='];

const comparison: fc.Arbitrary<FilterAst> = fc.oneof(
  scalar(TEXT_OPS, textOperand),
  scalar(ORDER_OPS, numberOperand),
  scalar(['=', '!='], booleanOperand),
  // A side against null, of any kind of field.
  fc
    .tuple(
      fc.constantFrom('=', '!=') as fc.Arbitrary<Operator>,
      fc.constantFrom(
        ...TEXT_FIELDS,
        'n',
        'flag',
        'tags',
        'scores',
        'items',
        'address',
        'meta',
        'meta.a',
        'meta.b.c',
        'author.tags',
      ),
      fc.boolean(),
    )
    .map(([op, path, swap]) => {
      const sides: [Operand, Operand] = [
        { type: 'field', path: path.split('.'), at: 0 },
        { type: 'literal', value: null, at: 0 },
      ];
      return swap ? compare(op, sides[1], sides[0]) : compare(op, sides[0], sides[1]);
    }),
  // Any-of, over arrays of fields and of the context.
  fc
    .tuple(
      fc.constantFrom<Operator>('?=', '?!=', '?>', '?>=', '?<', '?<=', '?~', '?!~'),
      fc.constantFrom('tags', 'author.tags').chain(field),
      textOperand,
    )
    .map(([op, l, r]) => compare(op, l, r)),
  fc
    .tuple(
      fc.constantFrom<Operator>('?=', '?!=', '?~', '?<'),
      fc.constantFrom('request.auth.groups', 'request.body.tags').chain(variable),
      textOperand,
    )
    .map(([op, l, r]) => compare(op, l, r)),
  fc
    .tuple(fc.constantFrom<Operator>('?=', '?!=', '?>', '?<='), field('scores'), numberOperand)
    .map(([op, l, r]) => compare(op, l, r)),
  // json paths against values of every JSON type.
  fc
    .tuple(
      fc.constantFrom<Operator>('=', '!='),
      fc.constantFrom('meta', 'meta.a', 'meta.b.c').chain(field),
      literal(jsonScalar),
    )
    .map(([op, l, r]) => compare(op, l, r)),
);

/** Filters of up to a few comparisons joined by && and ||. */
export const filter: fc.Arbitrary<FilterAst> = fc.letrec<{ node: FilterAst }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparison,
    fc.record({
      type: fc.constantFrom('and' as const, 'or' as const),
      left: tie('node'),
      right: tie('node'),
      at: fc.constant(0),
    }),
  ),
})).node;

/** Sorts of the posts: up to three keys of each orderable kind, in either direction. */
export const sortText = fc
  .uniqueArray(
    fc.constantFrom('title', 'n', 'i', 'flag', 'address.city', 'address.zip', 'when', 'created', 'owner', 'id'),
    {
      maxLength: 3,
    },
  )
  .chain((keys) => fc.tuple(...keys.map((k) => fc.constantFrom(k, `-${k}`))))
  .map((keys) => keys.join(','));
