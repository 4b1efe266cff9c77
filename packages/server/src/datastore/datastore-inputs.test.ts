import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInput } from '../core/validation.js';
import { createDataStoreInputs } from './datastore-inputs.js';

const inputs = createDataStoreInputs({
  maxKeyLength: 256,
  maxValueBytes: 65536,
  maxBatch: 100,
  defaultPageSize: 20,
  maxPageSize: 1000,
});

/** The schema's answer: its output, or the failure it throws. */
function bySchema(schema: typeof inputs.keys | typeof inputs.list, input: object): unknown {
  try {
    return parseInput(schema, input);
  } catch (err) {
    return err;
  }
}

const pageInputs: object[] = [
  {},
  { start: 1 },
  { start: '101', size: '50' },
  { start: 101, size: 50 },
  { size: 0 },
  { size: '0' },
  { start: '0' },
  { start: 0 },
  { start: -1 },
  { start: '-1' },
  { start: ' 5' },
  { start: '5 ' },
  { start: '+5' },
  { start: '5.0' },
  { start: 5.5 },
  { start: '1e3' },
  { start: '123456789012345' },
  { start: '1234567890123456' },
  { start: Number.MAX_SAFE_INTEGER + 1 },
  { start: Number.NaN },
  { start: Number.POSITIVE_INFINITY },
  { start: null },
  { start: true },
  { start: [] },
  { start: ['2'] },
  { start: {} },
  { size: -0 },
  { size: '' },
  { start: '' },
  { start: '٣' },
  { start: '2', unknown: 'ignored' },
  { start: '2', order: '>' },
  { start: '2', order: '<' },
  { start: '2', owner: 'someone' },
  { start: '2', prefix: 'k' },
  { start: '2', key: 'k1' },
  { start: '2', sort: 'value' },
  { start: '2', sort: 'key' },
];

test('the plain page fast path gives what the schemas give, for keys and list, or leaves the input to them', () => {
  for (const input of pageInputs) {
    const plain = inputs.plainPage(input);
    const keys = bySchema(inputs.keys, input);
    const list = bySchema(inputs.list, input);
    if (plain === null) continue;
    assert.deepStrictEqual(plain, keys, `keys ${JSON.stringify(input)}`);
    assert.deepStrictEqual({ ...plain, sort: 'key' }, list, `list ${JSON.stringify(input)}`);
  }
  // It takes the common forms; the others go to the schemas.
  const taken = pageInputs.filter((input) => inputs.plainPage(input) !== null).map((input) => JSON.stringify(input));
  assert.deepStrictEqual(taken, [
    '{}',
    '{"start":1}',
    '{"start":"101","size":"50"}',
    '{"start":101,"size":50}',
    '{"size":0}',
    '{"size":"0"}',
    '{"start":"123456789012345"}',
    '{"size":0}',
    '{"start":"2","unknown":"ignored"}',
  ]);
});
