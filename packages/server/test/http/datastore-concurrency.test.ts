import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';
import { ds } from '../helpers/datastore.js';

const PARALLEL = 50;

describe('data store: concurrency', () => {
  let tokens: string[];
  const s = useServer();
  before(async () => {
    tokens = await Promise.all(Array.from({ length: 5 }, (_, i) => s.createUser(`racer${i}`)));
  });
  const token = (i: number) => tokens[i % tokens.length];

  test(`${PARALLEL} parallel newItem of one key: exactly one wins, the rest get 409`, async () => {
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => ds(s, 'newItem', { key: 'contested', value: i }, { token: token(i) })),
    );
    const won = results.filter((r) => r.status === 200);
    const lost = results.filter((r) => r.status === 409);
    assert.equal(won.length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
    assert.equal(lost.length, PARALLEL - 1);
    for (const r of lost) {
      assert.equal(r.body.code, 'item_exists');
      assert.equal(r.body.result, 0);
      assert.deepEqual(r.body.success, []);
    }
    const winner = won[0]!.body.success[0];
    const stored = await ds(s, 'getItem', { key: 'contested' }, { token: token(0) });
    assert.equal(stored.body.id, winner[1]);
    assert.equal((await ds(s, 'list', { key: 'contested' }, { token: token(0) })).body.total, 1);
  });

  test(`${PARALLEL} parallel setItem of one new key by its future owner: all succeed, one item remains`, async () => {
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => ds(s, 'setItem', { key: 'upserted', value: i }, { token: tokens[0] })),
    );
    assert.deepEqual(
      [...new Set(results.map((r) => r.status))],
      [200],
      JSON.stringify(results.find((r) => r.status !== 200)?.body),
    );
    const list = await ds(s, 'list', { key: 'upserted' }, { token: tokens[0] });
    assert.equal(list.body.total, 1);
    assert.equal(typeof list.body.items[0].value, 'number');
  });

  test(`${PARALLEL} parallel setItem of one item by its owner and others: the owner's succeed`, async () => {
    assert.equal((await ds(s, 'newItem', { key: 'hot', value: -1 }, { token: token(0) })).status, 200);
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => ds(s, 'setItem', { key: 'hot', value: i }, { token: token(i) })),
    );
    const ownersValues = new Set<number>();
    for (const [i, r] of results.entries()) {
      if (i % tokens.length === 0) {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        ownersValues.add(i);
      } else {
        assert.equal(r.status, 403, JSON.stringify(r.body));
        assert.equal(r.body.code, 'not_allowed');
      }
    }
    // Whatever the order, the item holds a value one of the owner's acknowledged writes wrote.
    const stored = await ds(s, 'getItem', { key: 'hot' }, { token: token(1) });
    assert.ok(ownersValues.has(stored.body.value), `stored ${stored.body.value}`);
    assert.equal((await ds(s, 'setItem', { key: 'hot', value: 'after' }, { token: token(0) })).status, 200);
    assert.equal((await ds(s, 'getItem', { key: 'hot' }, { token: token(1) })).body.value, 'after');
  });

  test('callers replacing one item in turn, side by side: it ends with the last value of one of them', async () => {
    // Any write but a caller's last is followed by that caller's next: if writes of one row
    // that waited together ran out of order, the item could end with a value that is no last.
    const callers = 10;
    const rounds = 8;
    assert.equal((await ds(s, 'newItem', { key: 'turns', value: 'first' }, { token: token(0) })).status, 200);
    await Promise.all(
      Array.from({ length: callers }, async (_, c) => {
        for (let r = 0; r < rounds; r++) {
          const res = await ds(s, 'setItem', { key: 'turns', value: `${c}:${r}` }, { token: token(0) });
          assert.equal(res.status, 200, JSON.stringify(res.body));
        }
      }),
    );
    const stored = await ds(s, 'getItem', { key: 'turns' }, { token: token(0) });
    assert.match(stored.body.value, new RegExp(`^\\d+:${rounds - 1}$`));
  });

  test(`${PARALLEL} parallel newItem batches of distinct keys: every item stored once, ids unique`, async () => {
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        ds(
          s,
          'newItem',
          {
            items: [
              { key: `d${i}a`, value: i },
              { key: `d${i}b`, value: i },
            ],
          },
          { token: token(i) },
        ),
      ),
    );
    assert.ok(results.every((r) => r.status === 200));
    const ids = results.flatMap((r) => r.body.success.map((x: unknown[]) => x[1]));
    assert.equal(new Set(ids).size, PARALLEL * 2);
    assert.equal((await ds(s, 'keys', { size: 0 }, { token: token(0) })).body.total, PARALLEL * 2 + 4);
  });

  test('overlapping all-or-nothing batches: no batch is half stored', async () => {
    // Batch i holds keys o<i> and o<i+1>: neighbours collide, so some batches lose, but never in part.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ds(
          s,
          'newItem',
          {
            items: [
              { key: `o${i}`, value: i },
              { key: `o${i + 1}`, value: i },
            ],
          },
          { token: token(i) },
        ),
      ),
    );
    const stored = new Set<string>(
      (
        await ds(
          s,
          'list',
          { size: 100, owner: undefined, key: Array.from({ length: 21 }, (_, i) => `o${i}`) },
          { token: token(0) },
        )
      ).body.items.map((it: { key: string }) => it.key),
    );
    for (const [i, r] of results.entries()) {
      if (r.status === 200) {
        assert.ok(stored.has(`o${i}`) && stored.has(`o${i + 1}`));
      } else {
        assert.equal(r.status, 409);
      }
    }
    const winners = results.filter((r) => r.status === 200).length;
    assert.equal(stored.size, winners * 2, 'only whole batches were stored');
  });
});
