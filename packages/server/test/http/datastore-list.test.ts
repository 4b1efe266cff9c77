import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';
import { ds, userIdOf } from '../helpers/datastore.js';

/** 12 items k01..k12 by alice (values alternate numbers and text), 3 more by bob. */
describe('data store: list and keys', () => {
  let alice: string;
  let bob: string;
  const keysOf = (res: { body: { items: Array<{ key: string }> } }) => res.body.items.map((i) => i.key);
  const s = useServer({ dataStores: { data: { defaultPageSize: 5, maxPageSize: 10 } } });
  before(async () => {
    alice = await s.createUser('alice');
    bob = await s.createUser('bob');
    const mine = Array.from({ length: 12 }, (_, i) => ({
      key: `k${String(i + 1).padStart(2, '0')}`,
      value: i % 2 === 0 ? 100 - i : `text ${i}`,
    }));
    // One call each: distinct timestamps, in order.
    for (const item of mine) await ds(s, 'newItem', item, { token: alice });
    await ds(
      s,
      'newItem',
      {
        items: [
          { key: 'b1', value: 'bob' },
          { key: 'b2', value: 5 },
          { key: 'b3', value: 'zzz' },
        ],
      },
      { token: bob },
    );
  });

  test('defaults: sorted by key ascending, start 1, the configured default size, total', async () => {
    const res = await ds(s, 'list', {}, { token: alice });
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res), ['b1', 'b2', 'b3', 'k01', 'k02']);
    assert.equal(res.body.start, 1);
    assert.equal(res.body.size, 5);
    assert.equal(res.body.total, 15);
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), ['id', 'key', 'owner', 'timestamp', 'value']);
  });

  test('both orders', async () => {
    const down = await ds(s, 'list', { order: '>', size: 3 }, { token: alice });
    assert.deepEqual(keysOf(down), ['k12', 'k11', 'k10']);
    const up = await ds(s, 'list', { order: '<', size: 3 }, { token: alice });
    assert.deepEqual(keysOf(up), ['b1', 'b2', 'b3']);
  });

  test('start is 1-based; the last page is short; past the end is empty with the total', async () => {
    assert.deepEqual(keysOf(await ds(s, 'list', { start: 2, size: 2 }, { token: alice })), ['b2', 'b3']);
    const last = await ds(s, 'list', { start: 14, size: 5 }, { token: alice });
    assert.deepEqual(keysOf(last), ['k11', 'k12']);
    const past = await ds(s, 'list', { start: 16, size: 5 }, { token: alice });
    assert.deepEqual(past.body.items, []);
    assert.equal(past.body.total, 15);
    assert.equal(past.body.start, 16);
    const far = await ds(s, 'list', { start: 1_000_000 }, { token: alice });
    assert.deepEqual(far.body.items, []);
  });

  test('size 0 counts only; a size over the maximum is capped', async () => {
    const zero = await ds(s, 'list', { size: 0 }, { token: alice });
    assert.deepEqual(zero.body, { items: [], start: 1, size: 0, total: 15 });
    const big = await ds(s, 'list', { size: 1000 }, { token: alice });
    assert.equal(big.body.size, 10);
    assert.equal(big.body.items.length, 10);
  });

  test('sort by value: numbers by size first, then text; both orders', async () => {
    const up = await ds(s, 'list', { sort: 'value', size: 10 }, { token: alice });
    const values = up.body.items.map((i: { value: unknown }) => i.value);
    assert.deepEqual(values.slice(0, 7), [5, 90, 92, 94, 96, 98, 100]);
    assert.deepEqual(values.slice(7), ['bob', 'text 1', 'text 11']);
    const down = await ds(s, 'list', { sort: 'value', order: '>', size: 3 }, { token: alice });
    assert.deepEqual(
      down.body.items.map((i: { value: unknown }) => i.value),
      ['zzz', 'text 9', 'text 7'],
    );
  });

  test('sort by timestamp: creation order, and reversed', async () => {
    const up = await ds(s, 'list', { sort: 'timestamp', size: 3, key: ['k03', 'k01', 'k02'] }, { token: alice });
    assert.deepEqual(keysOf(up), ['k01', 'k02', 'k03']);
    const stamps = up.body.items.map((i: { timestamp: number }) => i.timestamp);
    assert.deepEqual([...stamps].sort(), stamps);
    const down = await ds(s, 'list', { sort: 'timestamp', order: '>', size: 1 }, { token: alice });
    assert.deepEqual(keysOf(down).length, 1);
  });

  test('key filter: one key or several, with the total of the filtered set', async () => {
    const one = await ds(s, 'list', { key: 'k05' }, { token: alice });
    assert.deepEqual(keysOf(one), ['k05']);
    assert.equal(one.body.total, 1);
    const several = await ds(s, 'list', { key: ['k07', 'b2', 'none'] }, { token: alice });
    assert.deepEqual(keysOf(several), ['b2', 'k07']);
    assert.equal(several.body.total, 2);
  });

  test('prefix filter on list and keys: literal characters (no wildcards, case kept), paged, with total', async () => {
    const k1 = await ds(s, 'list', { prefix: 'k1', size: 2 }, { token: alice });
    assert.deepEqual(keysOf(k1), ['k10', 'k11']);
    assert.equal(k1.body.total, 3);
    assert.deepEqual((await ds(s, 'keys', { prefix: 'b', order: '>' }, { token: alice })).body.keys, [
      'b3',
      'b2',
      'b1',
    ]);
    for (const prefix of ['k_', '%', 'K', 'k01x'])
      assert.equal((await ds(s, 'list', { prefix }, { token: alice })).body.total, 0, prefix);
    assert.equal((await ds(s, 'list', { prefix: '' }, { token: alice })).body.total, 15);
    // Characters, not bytes or UTF-16 units: a two-unit character is one.
    await ds(
      s,
      'newItem',
      {
        items: [
          { key: '𝄞ü-1', value: 1 },
          { key: '𝄞üx', value: 2 },
        ],
      },
      { token: alice },
    );
    try {
      assert.deepEqual(keysOf(await ds(s, 'list', { prefix: '𝄞ü-' }, { token: alice })), ['𝄞ü-1']);
    } finally {
      await ds(s, 'removeItem', { key: ['𝄞ü-1', '𝄞üx'] }, { token: alice });
    }
    const long = await ds(s, 'list', { prefix: 'x'.repeat(600) }, { token: alice });
    assert.equal(long.status, 422);
  });

  test('owner filter by name, email or id; an unknown owner matches nothing', async () => {
    const byName = await ds(s, 'list', { owner: 'bob' }, { token: alice });
    assert.deepEqual(keysOf(byName), ['b1', 'b2', 'b3']);
    assert.equal(byName.body.total, 3);
    const bobId = await userIdOf(s, bob);
    assert.equal((await ds(s, 'list', { owner: bobId }, { token: alice })).body.total, 3);
    assert.equal((await ds(s, 'list', { owner: 'bob@example.com' }, { token: alice })).body.total, 3);
    const nobody = await ds(s, 'list', { owner: 'nobody' }, { token: alice });
    assert.deepEqual(nobody.body, { items: [], start: 1, size: 5, total: 0 });
  });

  test('query-string paging (GET)', async () => {
    const res = await s.request('/data/api/list?start=3&size=2&order=%3E&sort=key', undefined, { token: alice });
    assert.deepEqual(keysOf(res), ['k10', 'k09']);
  });

  describe('keys', () => {
    test('the same paging over keys', async () => {
      const res = await ds(s, 'keys', { size: 4 }, { token: alice });
      assert.deepEqual(res.body, { keys: ['b1', 'b2', 'b3', 'k01'], start: 1, size: 4, total: 15 });
      assert.deepEqual((await ds(s, 'keys', { order: '>', size: 2 }, { token: alice })).body.keys, ['k12', 'k11']);
      assert.deepEqual((await ds(s, 'keys', { start: 15, size: 4 }, { token: alice })).body.keys, ['k12']);
      assert.deepEqual((await ds(s, 'keys', { start: 16 }, { token: alice })).body, {
        keys: [],
        start: 16,
        size: 5,
        total: 15,
      });
      assert.deepEqual((await ds(s, 'keys', { size: 0 }, { token: alice })).body, {
        keys: [],
        start: 1,
        size: 0,
        total: 15,
      });
      assert.equal((await ds(s, 'keys', { size: 99 }, { token: alice })).body.keys.length, 10);
    });

    test('owner filter; GET without parameters (jQuery)', async () => {
      assert.deepEqual((await ds(s, 'keys', { owner: 'bob' }, { token: alice })).body.keys, ['b1', 'b2', 'b3']);
      const res = await s.request('/data/api/keys', undefined, {
        token: alice,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.total, 15);
    });
  });

  describe('bad paging parameters answer 422 with the field', () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['start 0', { start: 0 }, 'start', 'too short'],
      ['negative start', { start: -1 }, 'start', 'too short'],
      ['start as words', { start: 'first' }, 'start', 'invalid'],
      ['fractional size', { size: 1.5 }, 'size', 'invalid'],
      ['negative size', { size: -3 }, 'size', 'too short'],
      ['unknown sort', { sort: 'owner' }, 'sort', 'invalid'],
      ['unknown order', { order: 'asc' }, 'order', 'invalid'],
      ['key as object', { key: { a: 1 } }, 'key', 'invalid'],
      ['owner as number', { owner: 5 }, 'owner', 'invalid'],
    ];
    for (const [name, body, field, reason] of cases) {
      test(name, async () => {
        for (const op of ['list', 'keys']) {
          if (op === 'keys' && (field === 'sort' || field === 'key')) continue;
          const res = await ds(s, op, body, { token: alice });
          assert.equal(res.status, 422, `${op} ${name}`);
          assert.equal(res.body.code, 'validation_failure');
          assert.deepEqual(res.body.invalid, [[field, reason]]);
        }
      });
    }
  });
});
