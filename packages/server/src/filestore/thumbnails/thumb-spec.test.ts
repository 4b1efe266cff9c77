import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseThumb } from './thumb-spec.js';

test('PocketBase’s thumb syntax: crops, fit inside, one side by the ratio', () => {
  assert.deepEqual(parseThumb('100x50'), { text: '100x50', width: 100, height: 50, fit: 'cover', position: 'centre' });
  assert.equal(parseThumb('100x50t')?.position, 'top');
  assert.equal(parseThumb('100x50b')?.position, 'bottom');
  assert.deepEqual(parseThumb('100x50f'), {
    text: '100x50f',
    width: 100,
    height: 50,
    fit: 'inside',
    position: 'centre',
  });
  assert.deepEqual(parseThumb('0x50'), { text: '0x50', width: 0, height: 50, fit: 'inside', position: 'centre' });
  assert.deepEqual(parseThumb('80x0'), { text: '80x0', width: 80, height: 0, fit: 'inside', position: 'centre' });
});

test('anything else is no thumbnail', () => {
  for (const text of [
    '',
    '0x0',
    '100',
    '100x',
    'x100',
    '100x50z',
    '0x50t',
    '80x0f',
    '010x10',
    '10x010',
    '10000x1',
    ' 10x10',
    '10X10',
  ])
    assert.equal(parseThumb(text), null, text);
});
