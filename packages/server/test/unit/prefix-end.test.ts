import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prefixEnd } from '../../src/datastore/page-repo.js';

// The end of a prefix's range of keys (datastore/page-repo.ts): every key that starts with
// the prefix sorts at or after it and before its end, byte-wise in UTF-8, as both databases
// compare keys; and no key that does not start with it falls in between.
const utf8 = (s: string) => Buffer.from(s);
const before = (a: string, b: string) => Buffer.compare(utf8(a), utf8(b)) < 0;

test('the end of a prefix is the prefix with its last character the next code point', () => {
  assert.equal(prefixEnd('k1'), 'k2');
  assert.equal(prefixEnd('a\u007f'), 'a\u0080');
  assert.equal(prefixEnd('é'), 'ê');
  assert.equal(prefixEnd('\uffff'), '\u{10000}');
  assert.equal(prefixEnd('😀'), '😁');
  // Past the surrogates, which UTF-8 cannot hold.
  assert.equal(prefixEnd('x\ud7ff'), 'x\ue000');
  // The highest code point has no next one: the character before it moves instead.
  assert.equal(prefixEnd('a\u{10ffff}'), 'b');
  assert.equal(prefixEnd('\u{10ffff}\u{10ffff}'), null);
  // A lone surrogate is stored as U+FFFD: no range, the prefix is compared only.
  assert.equal(prefixEnd('a\ud800'), null);
});

test('keys with the prefix fall in its range, neighbours outside do not', () => {
  const keys = [
    'k',
    'k1',
    'k1\u{10ffff}',
    'k10',
    'k1\u0000',
    'k1é',
    'k1😀',
    'k2',
    'k0\u{10ffff}',
    'j',
    'l',
    'k\u{10ffff}',
  ];
  for (const prefix of ['k1', 'k', 'k1é', 'k\u{10ffff}']) {
    const end = prefixEnd(prefix);
    assert.ok(end !== null);
    for (const key of keys) {
      const inRange: boolean = !before(key, prefix) && before(key, end);
      assert.equal(inRange, key.startsWith(prefix), `${JSON.stringify(key)} and the prefix ${JSON.stringify(prefix)}`);
    }
  }
});
