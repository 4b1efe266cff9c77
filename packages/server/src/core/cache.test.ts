import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cache, type CacheFeed, type FeedChange } from './cache.js';

let now = 0;
const clock = { now: () => now };
const counting = (maxSize = 100, ttlMs = 60_000) => new Cache<string>({ clock, ttlMs, maxSize });

/** A feed as storage/change-feed.ts gives one: what others publish arrives through `deliver`. */
function fakeFeed() {
  const listeners: Array<(change: FeedChange) => void> = [];
  const published: string[] = [];
  const feed: CacheFeed & { live: boolean } = {
    live: true,
    publish: async (topic, key) => void published.push(`${topic}:${key}`),
    subscribe: (listener) => void listeners.push(listener),
  };
  const deliver = (change: FeedChange) => {
    for (const listener of listeners) listener(change);
  };
  return { feed, published, deliver };
}

test('a read that started before a forget does not put its old value back', () => {
  const cache = counting();
  const readStartedAt = cache.generation;
  cache.forget('k'); // a write of k runs while the read is under way
  cache.keep('k', 'old', readStartedAt);
  assert.equal(cache.get('k'), undefined);
  cache.keep('k', 'new', cache.generation);
  assert.equal(cache.get('k'), 'new');
});

test('forget drops one key, forgetWhere those that match, forgetAll every key', () => {
  const cache = counting();
  for (const k of ['a', 'b', 'c', 'd']) cache.keep(k, k.toUpperCase(), cache.generation);
  cache.forget('a');
  cache.forgetWhere((value) => value === 'B');
  assert.deepEqual(
    ['a', 'b', 'c', 'd'].map((k) => cache.get(k)),
    [undefined, undefined, 'C', 'D'],
  );
  cache.forgetAll();
  assert.deepEqual(
    ['c', 'd'].map((k) => cache.get(k)),
    [undefined, undefined],
  );
});

test('size stays within its bound: a full cache starts again, a value larger than the bound is not kept', () => {
  const cache = new Cache<string>({ clock, ttlMs: 60_000, maxSize: 1000, sizeOf: (v) => v.length });
  cache.keep('big', 'x'.repeat(1001), cache.generation);
  assert.equal(cache.get('big'), undefined);
  for (let i = 0; i < 40; i++) cache.keep(`k${i}`, 'y'.repeat(50), cache.generation);
  const kept = Array.from({ length: 40 }, (_, i) => cache.get(`k${i}`)).filter(Boolean).length;
  assert.ok(kept >= 1 && kept <= 20, `kept ${kept}`);
  assert.ok(cache.get('k39'), 'the newest value is kept');
});

test('entries age out after their time; a time of 0 keeps nothing', () => {
  const cache = counting(100, 2000);
  cache.keep('k', 'v', cache.generation);
  now += 1999;
  assert.equal(cache.get('k'), 'v');
  now += 1;
  assert.equal(cache.get('k'), undefined);
  const off = counting(100, 0);
  off.keep('k', 'v', off.generation);
  assert.equal(off.get('k'), undefined);
});

test('reads that miss together share one load; a failed load is not kept', async () => {
  const cache = counting();
  let loads = 0;
  const load = async () => {
    loads++;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return `v${loads}`;
  };
  const answers = await Promise.all([cache.read('k', load), cache.read('k', load), cache.read('k', load)]);
  assert.deepEqual(answers, ['v1', 'v1', 'v1']);
  assert.equal(cache.read('k', load), 'v1', 'a hit answers without a promise');
  await assert.rejects(Promise.resolve(cache.read('x', () => Promise.reject(new Error('down')))), /down/);
  assert.equal(await cache.read('x', async () => 'up'), 'up');
});

test('a forget during a load: the load answers, but what it read is not kept', async () => {
  const cache = counting();
  let release = () => {};
  const pending = cache.read('k', () => new Promise<string>((resolve) => (release = () => resolve('old'))));
  cache.forget('k');
  release();
  assert.equal(await pending, 'old');
  assert.equal(cache.get('k'), undefined);
});

test('around forgets before and after the write, so a read during it keeps nothing', async () => {
  const cache = counting();
  cache.keep('k', 'old', cache.generation);
  await cache.around(
    () => cache.forget('k'),
    async () => {
      assert.equal(cache.get('k'), undefined, 'forgotten before the write');
      cache.keep('k', 'old', cache.generation); // a read during the write took the old row
    },
  );
  assert.equal(cache.get('k'), undefined, 'forgotten again after it');
});

test('the feed: a topic message forgets its key, followed topics run their forget, a feed down hides all', async () => {
  const { feed, published, deliver } = fakeFeed();
  const cache = new Cache<string>({ clock, ttlMs: 60_000, maxSize: 100, feed, topic: 'things' });
  const forgottenUsers: string[] = [];
  cache.follow('user', (key) => forgottenUsers.push(key));
  for (const k of ['a', 'b']) cache.keep(k, k, cache.generation);
  deliver({ topic: 'things', key: 'a' });
  deliver({ topic: 'other', key: 'b' });
  deliver({ topic: 'user', key: 'u1' });
  assert.deepEqual([cache.get('a'), cache.get('b'), forgottenUsers], [undefined, 'b', ['u1']]);

  feed.live = false;
  assert.equal(cache.get('b'), undefined, 'no answer from memory while messages may be missed');
  cache.keep('c', 'c', cache.generation);
  feed.live = true;
  assert.equal(cache.get('c'), undefined, 'nothing was kept while the feed was down');
  deliver(null);
  assert.equal(cache.get('b'), undefined, 'back up: everything is forgotten');

  await cache.publish('a');
  await cache.publish('u1', 'user');
  assert.deepEqual(published, ['things:a', 'user:u1']);
});
