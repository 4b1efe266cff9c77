import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isRoostError } from '../../core/errors.js';
import { type FilterAst, type Literal, type Operand, type Operator, printFilter } from './filter-ast.js';
import { parseFilter } from './filter-parser.js';
import { QUERY_LIMITS } from './query-errors.js';

/** The tree without positions: what a round trip through text must keep. */
function shape(ast: FilterAst): unknown {
  if (ast.type === 'compare') return [ast.op, operand(ast.left), operand(ast.right)];
  return [ast.type, shape(ast.left), shape(ast.right)];
}
const operand = (o: Operand) => (o.type === 'literal' ? { value: o.value } : { [o.type]: o.path.join('.') });

/** The `code` and the reason of the error `work` throws. */
function failure(work: () => unknown): { code: string; reason: string } {
  try {
    work();
  } catch (err) {
    assert.ok(isRoostError(err), String(err));
    assert.equal(err.kind, 'invalid');
    return { code: err.code, reason: err.fields[0]?.[1] ?? '' };
  }
  assert.fail('no error');
}

test('&& binds tighter than ||, both group to the left, parentheses regroup', () => {
  assert.deepEqual(shape(parseFilter('a = 1 || b = 2 && c = 3')), [
    'or',
    ['=', { field: 'a' }, { value: 1 }],
    ['and', ['=', { field: 'b' }, { value: 2 }], ['=', { field: 'c' }, { value: 3 }]],
  ]);
  assert.deepEqual(shape(parseFilter('(a=1||b=2)&&c=3')), [
    'and',
    ['or', ['=', { field: 'a' }, { value: 1 }], ['=', { field: 'b' }, { value: 2 }]],
    ['=', { field: 'c' }, { value: 3 }],
  ]);
  assert.deepEqual(shape(parseFilter('a = 1 && b = 2 && c = 3')), [
    'and',
    ['and', ['=', { field: 'a' }, { value: 1 }], ['=', { field: 'b' }, { value: 2 }]],
    ['=', { field: 'c' }, { value: 3 }],
  ]);
});

test('operands: paths, variables, keywords, strings with escapes, JSON numbers', () => {
  const ast = parseFilter(
    `address.city = "a\\"b\\\\c\\n\\u00e9\\ud83d\\ude00" && x != 'it\\'s' && @request.auth.id ?!= null && n >= -1.5e3`,
  );
  assert.deepEqual(shape(ast), [
    'and',
    [
      'and',
      ['and', ['=', { field: 'address.city' }, { value: 'a"b\\c\né😀' }], ['!=', { field: 'x' }, { value: "it's" }]],
      ['?!=', { variable: 'request.auth.id' }, { value: null }],
    ],
    ['>=', { field: 'n' }, { value: -1500 }],
  ]);
  for (const [text, value] of [
    ['0', 0],
    ['-0', 0],
    ['12.25', 12.25],
    ['1E+2', 100],
    ['true', true],
    ['false', false],
  ] as const)
    assert.deepEqual(shape(parseFilter(`a = ${text}`)), ['=', { field: 'a' }, { value }]);
  assert.ok(Object.is((parseFilter('a = -0') as { right: { value: number } }).right.value, 0));
});

test('every operator, with or without spaces', () => {
  for (const op of ['=', '!=', '>', '>=', '<', '<=', '~', '!~', '?=', '?!=', '?>', '?>=', '?<', '?<=', '?~', '?!~'])
    assert.equal((parseFilter(`a${op}"x"`) as { op: string }).op, op);
});

test('syntax errors say what and where', () => {
  const cases: [string, RegExp][] = [
    ['', /expected at the end at character 1/],
    ['title = ', /a field or a value expected at the end at character 9/],
    ['title == "x"', /unknown operator "==" at character 7/],
    ['title = "x', /a string not closed at character 9/],
    ['title = "\\q"', /unknown escape "\\\\q" at character 10/],
    ['a = 1 # 2', /unexpected "#" at character 7/],
    ['a = 1 b = 2', /"&&", "\|\|" or the end expected at "b" at character 7/],
    ['(a = 1', /"\)" expected to close the "\(" at character 1 at character 7/],
    ['a = 01', /unexpected "1" in a number at character 6/],
    ['a = 1.', /unexpected "\." in a number at character 6/],
    ['a = .5', /unexpected "\." at character 5/],
    ['a = 1e999', /a number too large at character 5/],
    ['a. = 1', /unexpected "\." in a name at character 2/],
    ['@ = 1', /a variable name .* at character 1/],
    ['a = 1 && ', /a field, a value or "\(" expected at the end at character 10/],
    ['a 1', /an operator .* expected at "1" at character 3/],
    ['😀 = 1', /unexpected "😀" at character 1/],
    ['"😀" = x y', /at "y" at character 9/],
    ['a = "\\u0000"', /NUL character .* at character 5/],
    ['a = "\\ud800"', /half of a surrogate pair at character 5/],
    ['a = "\ud800x"', /half of a surrogate pair at character 5/],
  ];
  for (const [text, reason] of cases) {
    const { code, reason: got } = failure(() => parseFilter(text));
    assert.equal(code, 'invalid_filter', text);
    assert.match(got, reason, text);
  }
});

test('limits: length, depth of parentheses, number of comparisons', () => {
  const long = `a = "${'x'.repeat(QUERY_LIMITS.filterLength)}"`;
  assert.equal(failure(() => parseFilter(long)).code, 'filter_too_long');
  const nested = (n: number) => `${'('.repeat(n)}a = 1${')'.repeat(n)}`;
  parseFilter(nested(QUERY_LIMITS.filterDepth));
  const deep = failure(() => parseFilter(nested(QUERY_LIMITS.filterDepth + 1)));
  assert.equal(deep.code, 'filter_too_deep');
  assert.match(deep.reason, /at character 17/);
  const many = (n: number) => Array.from({ length: n }, (_, i) => `a = ${i}`).join(' || ');
  parseFilter(many(QUERY_LIMITS.filterComparisons));
  assert.equal(failure(() => parseFilter(many(QUERY_LIMITS.filterComparisons + 1))).code, 'filter_too_complex');
  // A deep text that is refused fast, not by a stack overflow.
  assert.equal(failure(() => parseFilter('('.repeat(4000))).code, 'filter_too_deep');
});

const NAMES = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/).filter((n) => !['true', 'false', 'null'].includes(n));
const LITERALS: fc.Arbitrary<Literal> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 6 }).filter((s) => !s.includes('\u0000')),
  fc.string({ unit: fc.constantFrom('a', '"', "'", '\\', '\n', '\u0001', 'é', '😀'), maxLength: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const OPERAND: fc.Arbitrary<Operand> = fc.oneof(
  fc.array(NAMES, { minLength: 1, maxLength: 3 }).map((path) => ({ type: 'field' as const, path, at: 0 })),
  LITERALS.map((value) => ({ type: 'literal' as const, value, at: 0 })),
  fc.array(NAMES, { minLength: 1, maxLength: 3 }).map((path) => ({ type: 'variable' as const, path, at: 0 })),
);
const OPERATOR = fc.constantFrom<Operator>('=', '!=', '>', '>=', '<', '<=', '~', '!~', '?=', '?!=', '?~', '?!~', '?<=');
const { ast: AST } = fc.letrec<{ ast: FilterAst }>((tie) => ({
  ast: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      type: fc.constant('compare' as const),
      op: OPERATOR,
      left: OPERAND,
      right: OPERAND,
      at: fc.constant(0),
    }),
    fc.record({
      type: fc.constantFrom('and' as const, 'or' as const),
      left: tie('ast'),
      right: tie('ast'),
      at: fc.constant(0),
    }),
  ),
}));

test('printFilter and parseFilter round-trip any tree', () => {
  fc.assert(
    fc.property(AST, (ast) => {
      const text = printFilter(ast);
      assert.deepEqual(shape(parseFilter(text)), shape(ast), text);
    }),
    { numRuns: 500 },
  );
});
