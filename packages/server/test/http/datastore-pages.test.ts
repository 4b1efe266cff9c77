import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer, type TestServer } from '../helpers/test-server.js';
import { ds } from '../helpers/datastore.js';

// Pages start from remembered keys and totals come from kept counts
// (datastore/page-repo.ts): every answer here is checked against the items as this test
// knows them, after each kind of write and under parallel writers, on both databases.

type Known = Map<string, string>; // key → owner's name

/** Byte-wise order of UTF-8, as both databases compare keys. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

function expected(known: Known, filter: { owner?: string; prefix?: string }, order: '<' | '>'): string[] {
  const keys = [...known]
    .filter(
      ([key, owner]) => (filter.owner === undefined || owner === filter.owner) && key.startsWith(filter.prefix ?? ''),
    )
    .map(([key]) => key)
    .sort(byteOrder);
  return order === '>' ? keys.reverse() : keys;
}

/** Every page of `size`, walked from start 1 to past the end, for list and keys; checks each. */
async function walk(
  s: TestServer,
  token: string,
  known: Known,
  filter: { owner?: string; prefix?: string },
  order: '<' | '>',
  size: number,
): Promise<void> {
  const want = expected(known, filter, order);
  for (const op of ['list', 'keys'] as const) {
    for (let start = 1; start <= want.length + 1; start += size) {
      const res = await ds(s, op, { ...filter, order, start, size }, { token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const got = op === 'list' ? (res.body.items as Array<{ key: string }>).map((i) => i.key) : res.body.keys;
      const where = `${op} ${JSON.stringify(filter)} ${order} start ${start}`;
      assert.deepEqual(got, want.slice(start - 1, start - 1 + size), where);
      assert.equal(res.body.total, want.length, where);
    }
  }
}

describe('data store: pages and totals stay exact as the store changes', () => {
  const s = useServer({ dataStores: { data: { maxPageSize: 50 } } });
  const known: Known = new Map();
  let alice: string;
  let bob: string;
  let admin: string;

  async function create(token: string, owner: string, keys: string[]): Promise<void> {
    const res = await ds(s, 'newItem', { items: keys.map((key) => ({ key, value: key })) }, { token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    for (const key of keys) known.set(key, owner);
  }

  /** Every filter this store's keys make interesting, in both orders, pages of 4 and 7. */
  async function walkAll(): Promise<void> {
    for (const filter of [{}, { owner: 'alice' }, { owner: 'bob' }, { prefix: 'k1' }, { prefix: 'é' }, { prefix: 'k' }])
      for (const order of ['<', '>'] as const)
        for (const size of [4, 7]) await walk(s, alice, known, filter, order, size);
  }

  before(async () => {
    alice = await s.createUser('alice');
    bob = await s.createUser('bob');
    admin = await s.adminToken();
    await create(
      alice,
      'alice',
      Array.from({ length: 20 }, (_, i) => `k${i}`),
    );
    await create(bob, 'bob', ['b1', 'b2', 'k1x', 'é1', 'éa', 'ê', '😀', 'k\u{10FFFF}', 'z']);
  });

  test('every page of every filter, walked twice (the second time from the remembered keys)', async () => {
    await walkAll();
    await walkAll();
  });

  test('after a new item in the middle, a removed one, and an item given to another owner', async () => {
    await walkAll();
    await create(alice, 'alice', ['k10a', 'éb']);
    await walkAll();
    const removed = await ds(s, 'removeItem', { key: ['k3', 'éa'] }, { token: admin });
    assert.equal(removed.body.result, 2);
    known.delete('k3');
    known.delete('éa');
    await walkAll();
    const given = await ds(s, 'setOwner', { key: ['k5', 'b1'], newOwner: 'bob' }, { token: admin });
    assert.equal(given.status, 200, JSON.stringify(given.body));
    known.set('k5', 'bob');
    await walkAll();
  });

  test('a failed create (a key that exists) moves no total', async () => {
    const before = (await ds(s, 'keys', { size: 0 }, { token: alice })).body.total;
    const res = await ds(
      s,
      'newItem',
      {
        items: [
          { key: 'fresh1', value: 1 },
          { key: 'k1', value: 1 },
        ],
      },
      { token: alice },
    );
    assert.equal(res.status, 409);
    assert.equal((await ds(s, 'keys', { size: 0 }, { token: alice })).body.total, before);
    const one = await ds(s, 'newItem', { key: 'k1', value: 1 }, { token: alice });
    assert.equal(one.status, 409);
    await walkAll();
  });

  test('parallel creators, removers, owner changes and readers: the totals end exact', async () => {
    const fresh = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    const readers = Array.from({ length: 20 }, (_, i) =>
      ds(s, i % 2 ? 'list' : 'keys', { start: 1 + (i % 5) * 3, size: 4 }, { token: alice }),
    );
    const writes = [
      ...fresh.map((key, i) => ds(s, 'newItem', { key, value: i }, { token: i % 2 ? alice : bob })),
      // The same key created twice at once: one wins.
      ds(s, 'newItem', { key: 'twice', value: 1 }, { token: alice }),
      ds(s, 'newItem', { key: 'twice', value: 2 }, { token: alice }),
      ...['k6', 'k7', 'k8'].map((key) => ds(s, 'removeItem', { key }, { token: admin })),
      ds(s, 'setOwner', { key: 'k9', newOwner: 'bob' }, { token: admin }),
    ];
    const results = await Promise.all([...writes, ...readers]);
    for (const r of results) assert.ok(r.status === 200 || r.status === 409, JSON.stringify(r.body));
    assert.equal(results.filter((r) => r.status === 409).length, 1, 'one of the two creates of one key');
    for (const [i, key] of fresh.entries()) known.set(key, i % 2 ? 'alice' : 'bob');
    known.set('twice', 'alice');
    for (const key of ['k6', 'k7', 'k8']) known.delete(key);
    known.set('k9', 'bob');
    await walkAll();
  });
});
