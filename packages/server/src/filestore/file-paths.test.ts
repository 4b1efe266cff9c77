import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isRoostError } from '../core/errors.js';
import { childOf, isWithin, parsePath, pathOf, ROOT } from './file-paths.js';

/** The field and reason of the `invalid_path` a parse throws. */
function refusedAs(parse: () => unknown): [string, string] {
  try {
    parse();
  } catch (err) {
    assert.ok(isRoostError(err) && err.code === 'invalid_path', String(err));
    const [field, reason] = err.fields[0] ?? [];
    return [String(field), String(reason)];
  }
  assert.fail('the path was accepted');
}

test('a path: one leading "/" is the root, one trailing "/" the directory form', () => {
  assert.equal(parsePath('/docs/a.txt').path, 'docs/a.txt');
  assert.equal(parsePath('docs/').path, 'docs');
  assert.deepEqual(parsePath('/'), ROOT);
  const deep = parsePath('a/b/c.txt');
  assert.deepEqual([deep.segments, deep.name, deep.parent], [['a', 'b', 'c.txt'], 'c.txt', 'a/b']);
});

test('names that would mean something else are refused, with the field that held them', () => {
  const cases: Array<[string, string]> = [
    ['a//b', 'required'],
    ['a/../b', 'invalid'],
    ['a/./b', 'invalid'],
    ['a\\b', 'invalid'],
    ['a\u0000b', 'invalid'],
    ['new\nline', 'invalid'],
    ['a%2Fb', 'invalid'],
    ['@read', 'invalid'],
    [' padded', 'invalid'],
    ['\ud800', 'invalid'],
    ['api/x', 'reserved'],
    ['x'.repeat(256), 'too long'],
  ];
  for (const [text, reason] of cases)
    assert.deepEqual(
      refusedAs(() => parsePath(text, 'newpath')),
      ['newpath', reason],
      text,
    );
  assert.deepEqual(parsePath('docs/api').path, 'docs/api', '"api" is reserved at the top only');
});

test('segments split by the HTTP layer are not split again; depth and length are bounded', () => {
  assert.deepEqual(
    refusedAs(() => pathOf(['a/b'])),
    ['path', 'invalid'],
  );
  assert.deepEqual(
    refusedAs(() => pathOf(Array.from({ length: 1000 }, () => 'd'))),
    ['path', 'too long'],
  );
  assert.equal(pathOf([]).path, '');
});

test('childOf names an entry inside a directory; isWithin says what a subtree holds', () => {
  const docs = parsePath('docs');
  assert.equal(childOf(docs, 'a.txt').path, 'docs/a.txt');
  assert.deepEqual(
    refusedAs(() => childOf(ROOT, 'api')),
    ['name', 'reserved'],
  );
  assert.deepEqual(
    refusedAs(() => childOf(docs, '..')),
    ['name', 'invalid'],
  );
  assert.ok(isWithin(parsePath('docs/a.txt'), docs));
  assert.ok(isWithin(docs, docs));
  assert.ok(isWithin(docs, ROOT));
  assert.ok(!isWithin(parsePath('docs2/a.txt'), docs), 'a sibling with the same prefix is not inside');
});
