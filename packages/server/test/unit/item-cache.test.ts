import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ItemCache } from '../../src/datastore/item-cache.js';

let now = 0;
const clock = { now: () => now };
const item = (key: string, value: string | number) => ({ id: 1, key, value, owner: null, ownerName: null, updated: 0 });

test('a read that started before a write does not put its old value back', () => {
  const cache = new ItemCache(1 << 20, 60_000, clock);
  const readStartedAt = cache.version;
  cache.forget(['k']); // a write of k runs while the read is under way
  cache.put(item('k', 'old'), readStartedAt);
  assert.equal(cache.get('k'), undefined);
  cache.put(item('k', 'new'), cache.version);
  assert.equal(cache.get('k')?.value, 'new');
});

test('forget drops the named keys, forgetAll every key', () => {
  const cache = new ItemCache(1 << 20, 60_000, clock);
  for (const k of ['a', 'b', 'c']) cache.put(item(k, k), cache.version);
  cache.forget(['a']);
  assert.deepEqual(
    ['a', 'b', 'c'].map((k) => cache.get(k)?.value),
    [undefined, 'b', 'c'],
  );
  cache.forgetAll();
  assert.deepEqual(
    ['b', 'c'].map((k) => cache.get(k)),
    [undefined, undefined],
  );
});

test('memory stays within its bound: a full cache starts again, an item larger than the bound is not kept', () => {
  const cache = new ItemCache(1000, 60_000, clock);
  cache.put(item('big', 'x'.repeat(1000)), cache.version);
  assert.equal(cache.get('big'), undefined);
  for (let i = 0; i < 20; i++) cache.put(item(`k${i}`, 'y'.repeat(50)), cache.version);
  const kept = Array.from({ length: 20 }, (_, i) => cache.get(`k${i}`)).filter(Boolean).length;
  assert.ok(kept >= 1 && kept < 20, `kept ${kept}`);
  assert.ok(cache.get('k19'), 'the newest item is kept');
});

test('entries age out, so a renamed owner shows within the session cache time', () => {
  const cache = new ItemCache(1 << 20, 2000, clock);
  cache.put(item('k', 'v'), cache.version);
  now += 1999;
  assert.ok(cache.get('k'));
  now += 1;
  assert.equal(cache.get('k'), undefined);
});
