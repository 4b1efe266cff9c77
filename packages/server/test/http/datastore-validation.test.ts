import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';
import { ds } from '../helpers/datastore.js';

const MAX_KEY = 20;
const MAX_VALUE = 100;
const MAX_BATCH = 10;

describe('data store: validation and hostile input', () => {
  let alice: string;
  const keys = async () => (await ds(s, 'keys', { size: 500 }, { token: alice })).body.keys as string[];
  const s = useServer({
    bodyLimit: 64 * 1024,
    dataStores: { data: { maxKeyLength: MAX_KEY, maxValueBytes: MAX_VALUE, maxBatch: MAX_BATCH } },
  });
  before(async () => {
    alice = await s.createUser('alice');
    await ds(s, 'newItem', { key: 'exists', value: 'v' }, { token: alice });
  });

  describe('every field: 422 validation_failure with the field and reason, nothing stored', () => {
    const cases: Array<[name: string, body: Record<string, unknown>, invalid: Array<[string, string]>]> = [
      [
        'no key, no value',
        {},
        [
          ['key', 'required'],
          ['value', 'required'],
        ],
      ],
      ['no value', { key: 'k' }, [['value', 'required']]],
      ['empty key', { key: '', value: 1 }, [['key', 'required']]],
      ['blank key', { key: '   ', value: 1 }, [['key', 'required']]],
      ['key too long', { key: 'k'.repeat(MAX_KEY + 1), value: 1 }, [['key', 'too long']]],
      ['key as number', { key: 5, value: 1 }, [['key', 'invalid']]],
      ['key as object', { key: { $gt: '' }, value: 1 }, [['key', 'invalid']]],
      ['key with a newline', { key: 'a\nb', value: 1 }, [['key', 'invalid']]],
      ['key with a control character', { key: 'a\u0007b', value: 1 }, [['key', 'invalid']]],
      ['key with a lone surrogate', { key: 'a\ud800b', value: 1 }, [['key', 'invalid']]],
      ['value as object', { key: 'k', value: { a: 1 } }, [['value', 'invalid']]],
      ['value as list', { key: 'k', value: [1, 2] }, [['value', 'invalid']]],
      ['value as boolean', { key: 'k', value: true }, [['value', 'invalid']]],
      ['value too large', { key: 'k', value: 'v'.repeat(MAX_VALUE + 1) }, [['value', 'too long']]],
      [
        'value too large in bytes (multi-byte text)',
        { key: 'k', value: 'é'.repeat(MAX_VALUE / 2 + 1) },
        [['value', 'too long']],
      ],
      ['value with a lone surrogate', { key: 'k', value: '\udc00' }, [['value', 'invalid']]],
      ['items as text', { items: 'k=v' }, [['items', 'invalid']]],
      ['empty items', { items: [] }, [['items', 'too short']]],
      ['items with a non-object', { items: [{ key: 'k1', value: 1 }, 'x'] }, [['items.1', 'invalid']]],
      ['second item without key', { items: [{ key: 'k1', value: 1 }, { value: 2 }] }, [['items.1.key', 'required']]],
      [
        'second item with a bad value',
        {
          items: [
            { key: 'k1', value: 1 },
            { key: 'k2', value: null, extra: 1 },
          ],
        },
        [['items.1.value', 'required']],
      ],
      ['owner as number', { key: 'k', value: 1, owner: 7 }, [['owner', 'invalid']]],
    ];
    for (const [name, body, invalid] of cases) {
      test(name, async () => {
        for (const op of ['newItem', 'setItem']) {
          const res = await ds(s, op, body, { token: alice });
          assert.equal(res.status, 422, `${op}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, 'validation_failure');
          assert.equal(res.body.result, 0);
          assert.deepEqual(res.body.success, []);
          assert.equal(typeof res.body.message, 'string');
          assert.deepEqual(res.body.invalid, invalid, op);
          assert.deepEqual(res.body.messages, [res.body.message, ...invalid]);
        }
        assert.deepEqual(await keys(), ['exists'], 'nothing stored');
      });
    }

    test('a value of exactly the limit is fine, and so are the longest key and a number', async () => {
      const res = await ds(
        s,
        'newItem',
        {
          items: [
            { key: '🦉'.repeat(MAX_KEY), value: 'é'.repeat(MAX_VALUE / 2) },
            { key: 'num', value: -1.25e-7 },
          ],
        },
        { token: alice },
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal((await ds(s, 'getItem', { key: 'num' }, { token: alice })).body.value, -1.25e-7);
      await ds(s, 'removeItem', { key: ['🦉'.repeat(MAX_KEY), 'num'] }, { token: alice });
    });

    test('a number too large for a double (1e400) is invalid', async () => {
      const res = await ds(s, 'newItem', undefined, {
        token: alice,
        raw: '{"key":"big","value":1e400}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.invalid, [['value', 'invalid']]);
    });

    const addressed: Array<[name: string, body: Record<string, unknown>, invalid: Array<[string, string]>]> = [
      ['no key or id', {}, [['key', 'required']]],
      ['empty key', { key: '' }, [['key', 'required']]],
      ['key with a control character', { key: 'a\u0001' }, [['key', 'invalid']]],
      ['empty key in a list', { key: ['a', ''] }, [['key.1', 'required']]],
      ['id 0', { id: 0 }, [['id.0', 'too short']]],
      ['id as words', { id: 'seven' }, [['id.0', 'invalid']]],
      ['fractional id', { id: 1.5 }, [['id.0', 'invalid']]],
      ['item without key or id', { items: [{ owner: 'alice' }] }, [['items.0.key', 'required']]],
    ];
    for (const [name, body, invalid] of addressed) {
      test(`getItem, removeItem, getOwner: ${name}`, async () => {
        for (const op of ['getItem', 'removeItem', 'getOwner']) {
          const res = await ds(s, op, body, { token: alice });
          assert.equal(res.status, 422, op);
          assert.deepEqual(res.body.invalid, invalid, op);
        }
      });
    }
  });

  describe('too many items: 413 too_many_items, nothing stored', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `m${i}`, value: i }));
    test('newItem and setItem with more than maxBatch items', async () => {
      for (const op of ['newItem', 'setItem']) {
        const res = await ds(s, op, { items: many(MAX_BATCH + 1) }, { token: alice });
        assert.equal(res.status, 413, op);
        assert.equal(res.body.code, 'too_many_items');
        assert.equal(res.body.result, 0);
        assert.deepEqual(res.body.success, []);
        assert.deepEqual(res.body.invalid, [['items', 'too many']]);
      }
      assert.deepEqual(await keys(), ['exists']);
      assert.equal(
        (await ds(s, 'newItem', { items: many(MAX_BATCH) }, { token: alice })).status,
        200,
        'exactly maxBatch is fine',
      );
      assert.equal(
        (await ds(s, 'removeItem', { key: many(MAX_BATCH).map((i) => i.key) }, { token: alice })).body.result,
        MAX_BATCH,
      );
    });
    test('key and id lists of the reads and removals', async () => {
      const keyList = many(MAX_BATCH + 1).map((i) => i.key);
      for (const op of ['getItem', 'removeItem', 'getOwner', 'list', 'setOwner']) {
        const res = await ds(s, op, { key: keyList, newOwner: 'alice' }, { token: alice });
        assert.equal(res.status, 413, op);
        assert.deepEqual(res.body.invalid, [['key', 'too many']]);
      }
      const ids = await ds(
        s,
        'getItem',
        { id: Array.from({ length: MAX_BATCH + 1 }, (_, i) => i + 1) },
        { token: alice },
      );
      assert.equal(ids.status, 413);
    });
    test('anonymous callers get the 413 too (the list is refused before anything else)', async () => {
      assert.equal((await ds(s, 'newItem', { items: many(MAX_BATCH + 1) })).status, 413);
    });
  });

  describe('transport-level hostility', () => {
    test('NUL bytes in a key or value: 400 nul_character', async () => {
      for (const body of [
        { key: 'a\u0000b', value: 1 },
        { key: 'k', value: 'x\u0000' },
        { items: [{ key: 'k', value: 1, '\u0000': 1 }] },
      ]) {
        const res = await ds(s, 'newItem', body, { token: alice });
        assert.equal(res.status, 400);
        assert.equal(res.body.code, 'nul_character');
      }
      const query = await s.request('/data/api/getItem?key=a%00b', undefined, { token: alice });
      assert.equal(query.status, 400);
    });
    test('a body over bodyLimit: 413 body_too_large', async () => {
      const res = await ds(s, 'newItem', { key: 'huge', value: 'x'.repeat(100 * 1024) }, { token: alice });
      assert.equal(res.status, 413);
      assert.equal(res.body.code, 'body_too_large');
    });
    test('broken JSON, a list body, a foreign content type', async () => {
      const headers = { 'content-type': 'application/json' };
      assert.equal(
        (await ds(s, 'newItem', undefined, { token: alice, raw: '{"key":', headers })).body.code,
        'malformed_json',
      );
      assert.equal(
        (await ds(s, 'newItem', undefined, { token: alice, raw: '[{"key":"a","value":1}]', headers })).body.code,
        'malformed_body',
      );
      const xml = await ds(s, 'newItem', undefined, {
        token: alice,
        raw: '<item/>',
        headers: { 'content-type': 'application/xml' },
      });
      assert.equal(xml.status, 415);
    });
    test('__proto__ and constructor keys in a body are not special', async () => {
      const res = await ds(s, 'newItem', undefined, {
        token: alice,
        raw: '{"key":"proto","value":1,"__proto__":{"admin":true}}',
        headers: { 'content-type': 'application/json' },
      });
      assert.ok(res.status === 400 || res.status === 200, `status ${res.status}`);
      assert.equal((await ds(s, 'getPermissions', {}, { token: alice })).status, 403);
      await ds(s, 'removeItem', { key: 'proto' }, { token: alice });
    });
    test('SQL and pattern characters in keys are stored and found literally', async () => {
      const hostile = [
        "';DROP TABLE t;--",
        '" OR 1=1 --',
        '%',
        '_',
        '\\',
        'a%b_c',
        '../../etc/passwd',
        '<script>x</script>',
        '𝓤ñí©ødé',
      ];
      const res = await ds(
        s,
        'newItem',
        { items: hostile.map((key, i) => ({ key, value: `v${i}` })) },
        { token: alice },
      );
      assert.equal(res.status, 200);
      for (const [i, key] of hostile.entries()) {
        const got = await ds(s, 'getItem', { key }, { token: alice });
        assert.equal(got.body.value, `v${i}`, key);
      }
      const get = await s.request(`/data/api/getItem?key=${encodeURIComponent('%')}`, undefined, { token: alice });
      assert.equal(get.body.value, 'v2');
      assert.equal((await ds(s, 'list', { key: '%' }, { token: alice })).body.total, 1);
      assert.equal((await ds(s, 'list', { key: '_' }, { token: alice })).body.total, 1);
      assert.equal((await keys()).length, hostile.length + 1, 'the table is still there, with every key');
      assert.equal((await ds(s, 'removeItem', { key: hostile }, { token: alice })).body.result, hostile.length);
    });
  });
});
