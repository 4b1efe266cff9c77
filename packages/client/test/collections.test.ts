import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  collection,
  collections,
  filter,
  isRoostError,
  realtime,
  type RecordChange,
  type RoostError,
} from '../src/index.js';
import { recordOrder } from '../src/bindings/record-order.js';
import type { Collections, PostsRecord } from './fixtures/roost-types.js';
import { startRoost, type TestServer } from './helpers/roost.js';

/** The first failure of `promise`, which must fail with a RoostError. */
async function failure(promise: Promise<unknown>): Promise<RoostError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isRoostError(error), String(error));
    return error;
  }
  assert.fail('expected a failure');
}

/** The changes a live query heard, with a wait for the next ones. */
function heard() {
  const changes: RecordChange<PostsRecord>[] = [];
  return {
    changes,
    onChange: (change: RecordChange<PostsRecord>) => void changes.push(change),
    async until(count: number, ms = 8000): Promise<RecordChange<PostsRecord>[]> {
      const deadline = Date.now() + ms;
      while (changes.length < count) {
        if (Date.now() > deadline) throw new Error(`${changes.length} of ${count} changes: ${JSON.stringify(changes)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return changes.slice(0, count);
    },
  };
}

/**
 * The collections' connector (issue 39, item 6) against a real Roost with the collections of
 * fixtures/collections.json, typed by what `roost types` writes for them (fixtures/roost-types.ts):
 * every route, the failure body with its fields, values in filters that stay values, pages by
 * cursor, batches all or nothing, live queries.
 */
describe('collections connector (Node)', () => {
  let s: TestServer;
  let ann: string;
  let bob: string;
  let db: ReturnType<typeof collections<Collections>>;
  before(async () => {
    s = await startRoost();
    ann = await s.createUser('ann');
    bob = await s.createUser('bob');
    db = collections<Collections>({ baseUrl: s.url, token: ann });
  });
  after(() => s?.close());

  test('create, get, update, replace and delete a record, typed by the generated types', async () => {
    const called: string[] = [];
    const posts = collection<PostsRecord>('posts', {
      baseUrl: s.url,
      token: ann,
      onSuccess: (operation) => called.push(operation),
    });
    const made = await posts.create({ title: 'Road works', priority: 2, address: { city: 'Oslo' }, meta: { n: [1] } });
    assert.match(made.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    assert.equal(made.status, 'open', 'the schema default');
    assert.equal(made.created, made.updated);
    assert.equal(typeof made.owner, 'string');
    assert.deepEqual(await posts.get(made.id), made);
    const changed = await posts.update(made.id, { priority: null, tags: ['a', 'b'] });
    assert.equal(changed.priority, undefined, 'null removes a field');
    assert.deepEqual(changed.tags, ['a', 'b']);
    assert.equal(changed.title, 'Road works');
    const replaced = await posts.replace(made.id, { title: 'Whole' });
    assert.deepEqual(Object.keys(replaced).sort(), ['created', 'id', 'owner', 'status', 'title', 'updated']);
    assert.equal(await posts.delete(made.id), null);
    const gone = await failure(posts.get(made.id));
    assert.deepEqual([gone.status, gone.code, gone.operation], [404, 'record_not_found', 'records_get']);
    assert.deepEqual(called, ['records_create', 'records_get', 'records_merge', 'records_replace', 'records_delete']);
  });

  test('a write the schema refuses rejects with every bad field, and stores nothing', async () => {
    const posts = db.collection('posts');
    const before = (await posts.list({ total: true, perPage: 1 })).total;
    const bad = await failure(
      // @ts-expect-error: wrong on purpose, as a program without the types could send it
      posts.create({ title: '', priority: 9, tags: 'x', address: {}, extra: 1 }),
    );
    assert.deepEqual([bad.status, bad.code], [422, 'validation_failure']);
    for (const field of ['title', 'priority', 'tags', 'address.city', 'extra'])
      assert.ok(bad.reason(field), `${field} is named: ${JSON.stringify(bad.fields)}`);
    assert.equal((await posts.list({ total: true, perPage: 1 })).total, before);
  });

  test('callers without permission, unknown collections and hostile ids are refused', async () => {
    const anonymous = collection<PostsRecord>('posts', { baseUrl: s.url });
    const refused = await failure(anonymous.create({ title: 'anon' }));
    assert.deepEqual([refused.status, refused.code], [401, 'not_signed_in']);
    const made = await db.collection('posts').create({ title: 'ann only' });
    // The update rule (owner = @request.auth.id) hides ann's record from bob: 404, as if it did not exist.
    const asBob = collections<Collections>({ baseUrl: s.url, token: bob }).collection('posts');
    assert.equal((await failure(asBob.update(made.id, { title: 'bob was here' }))).code, 'record_not_found');
    assert.equal((await failure(asBob.delete(made.id))).status, 404);
    assert.equal((await db.collection('posts').get(made.id)).title, 'ann only');
    const unknown = await failure(collection('nothing', { baseUrl: s.url }).list());
    assert.deepEqual([unknown.status, unknown.code], [404, 'unknown_collection']);
    for (const id of ["1' OR '1'='1", '../../etc/passwd', 'x'.repeat(100)])
      assert.equal((await failure(asBob.get(id))).status, 422, id);
    assert.throws(() => collection('Posts', { baseUrl: s.url }), TypeError);
    assert.throws(() => db.collection('../users' as 'posts'), TypeError);
    assert.throws(() => asBob.get(''), TypeError);
  });

  test('filter() keeps values values: quotes, escapes and operators in them match themselves only', async () => {
    const posts = db.collection('posts');
    const tricky = ['say "hi"', "it's", 'back\\slash', 'line\nbreak', '" || title != "', 'é 😀 \u2028', '{:x}'];
    for (const title of tricky) await posts.create({ title, tags: ['tricky'] });
    for (const title of tricky) {
      const page = await posts.list({ filter: filter('title = {:title} && tags ?= {:tag}', { title, tag: 'tricky' }) });
      assert.deepEqual(
        page.items.map((p) => p.title),
        [title],
        title,
      );
    }
    assert.equal(
      filter('a = {:a} && b > {:b} && c = {:c} && d = {:d} && e >= {:e}', {
        a: 'x"y',
        b: -2.5,
        c: true,
        d: null,
        e: new Date(Date.UTC(2026, 0, 2)),
      }),
      'a = "x\\"y" && b > -2.5 && c = true && d = null && e >= "2026-01-02T00:00:00.000Z"',
    );
    assert.throws(() => filter('a = {:a}', {}), /no value for it/);
    assert.throws(() => filter('a = {:a}', { a: Number.NaN }), /finite numbers/);
    assert.throws(() => filter('a = {:a}', { a: 'nul\u0000' }), /NUL/);
    assert.throws(() => filter('a = {:a}', { a: 'half \ud800' }), /surrogate/);
    assert.throws(() => filter('a = {:a}', { a: { x: 1 } as never }), /object/);
    assert.throws(() => filter('a = {:a}', { a: new Date('nope') }), /invalid Date/);
  });

  test('pages: sort on several fields, cursors without gaps or repeats, a total; bad queries named', async () => {
    const posts = db.collection('posts');
    const tag = `page-${Date.now()}`;
    await db.batch(
      Array.from({ length: 7 }, (_, i) => ({
        collection: 'posts' as const,
        action: 'create' as const,
        data: { title: `p${i}`, priority: i % 3, tags: [tag] },
      })),
    );
    const query = { filter: filter('tags ?= {:tag}', { tag }), sort: ['-priority', 'title'] as const, perPage: 3 };
    const first = await posts.list({ ...query, total: true });
    assert.equal(first.total, 7);
    const seen = [...first.items];
    let cursor = first.next;
    while (cursor) {
      const page = await posts.list({ ...query, cursor });
      assert.equal(page.total, undefined, 'no total unless asked');
      seen.push(...page.items);
      cursor = page.next;
    }
    assert.deepEqual(
      seen.map((p) => p.title),
      ['p2', 'p5', 'p1', 'p4', 'p0', 'p3', 'p6'],
    );
    const badFilter = await failure(posts.list({ filter: 'priority ~ 2' }));
    assert.deepEqual([badFilter.status, badFilter.code, badFilter.fields[0]?.[0]], [422, 'invalid_filter', 'filter']);
    // @ts-expect-error: no such field, as a program without the types could send it
    const badSort = await failure(posts.list({ sort: 'nothing' }));
    assert.equal(badSort.code, 'invalid_sort');
    assert.equal((await failure(posts.list({ perPage: 501 }))).reason('perPage'), 'a whole number from 1 to 500');
    assert.equal((await failure(posts.list({ cursor: 'not-a-cursor' }))).code, 'invalid_cursor');
  });

  test("the live views' order is the server's: code points, nulls, numbers, booleans, members, id last", async () => {
    const posts = db.collection('posts');
    const tag = `order-${Date.now()}`;
    const titles = ['Z', 'a', 'é', '😀', '\uffff', 'a', 'ab', ' '];
    await db.batch(
      titles.map((title, i) => ({
        collection: 'posts' as const,
        action: 'create' as const,
        data: {
          title,
          tags: [tag],
          ...(i % 3 === 0 ? {} : { priority: i % 4 }),
          ...(i % 2 === 0 ? { done: i % 4 === 0 } : {}),
          ...(i % 3 === 1 ? { address: { city: titles[(i + 3) % titles.length] as string } } : {}),
        },
      })),
    );
    const sorts = [undefined, 'title', '-title', '-priority,title', 'address.city', 'done,-priority', 'priority,-id'];
    for (const sort of sorts) {
      const { items } = await posts.list({
        filter: filter('tags ?= {:tag}', { tag }),
        ...(sort ? { sort: sort as 'title' } : {}),
      });
      const ids = items.map((p) => p.id);
      assert.deepEqual(
        [...items].sort(recordOrder(sort)).map((p) => p.id),
        ids,
        `sort ${sort}`,
      );
      assert.deepEqual(
        [...items]
          .reverse()
          .sort(recordOrder(sort))
          .map((p) => p.id),
        ids,
        `sort ${sort}, reversed`,
      );
    }
  });

  test('expand brings the related record, in a page and in a get; a bad path is named', async () => {
    const author = await db.collection('authors').create({ name: `Grace ${Date.now()}` });
    const posts = db.collection('posts');
    const made = await posts.create({ title: 'with its author', author: author.id });
    const one = await posts.get(made.id, { expand: ['author'] });
    assert.deepEqual(one.expand?.author, author);
    const page = await posts.list({ filter: filter('id = {:id}', { id: made.id }), expand: 'author' });
    assert.deepEqual(page.items[0]?.expand, { author });
    assert.equal((await posts.get(made.id)).author, author.id, 'without expand, the id alone');
    const bad = await failure(posts.list({ expand: 'title' }));
    assert.deepEqual([bad.code, bad.fields[0]?.[0]], ['invalid_expand', 'expand']);
  });

  test('a batch of several collections is all or nothing', async () => {
    const made = await db.collection('posts').create({ title: 'to delete' });
    const [post, author, deleted] = await db.batch([
      { collection: 'posts', action: 'create', data: { title: 'batched' } },
      { collection: 'authors', action: 'create', data: { name: `Ada ${made.id}` } },
      { collection: 'posts', action: 'delete', id: made.id },
    ]);
    assert.equal(post.title, 'batched');
    assert.equal(author.name, `Ada ${made.id}`);
    assert.equal(deleted, null);
    const posts = db.collection('posts');
    const before = (await posts.list({ total: true, perPage: 1 })).total;
    const refused = await failure(
      posts.batch([
        { action: 'create', data: { title: 'kept?' } },
        // @ts-expect-error: title is required
        { action: 'create', data: { priority: 1 } },
      ]),
    );
    assert.deepEqual([refused.code, refused.fields], ['validation_failure', [['operations.1.title', 'required']]]);
    assert.equal((await posts.list({ total: true, perPage: 1 })).total, before, 'nothing of the batch is stored');
    const tooMany = await failure(
      posts.batch(Array.from({ length: 101 }, (_, i) => ({ action: 'create' as const, data: { title: `${i}` } }))),
    );
    assert.deepEqual([tooMany.status, tooMany.code], [413, 'too_many_operations']);
  });

  test('live: a filtered query hears what enters it, what changes in it, what leaves it, what is deleted', async () => {
    const posts = db.collection('posts');
    const tag = `live-${Date.now()}`;
    const urgent = heard();
    const stop = posts.live({ filter: filter('tags ?= {:tag} && priority >= 3', { tag }) }, urgent.onChange);
    await db.realtime.ready();
    const low = await posts.create({ title: 'low', priority: 1, tags: [tag] });
    const high = await posts.create({ title: 'high', priority: 4, tags: [tag] });
    await posts.update(low.id, { priority: 5 });
    await posts.update(high.id, { priority: 0 });
    await posts.delete(low.id);
    const changes = await urgent.until(4);
    assert.deepEqual(
      changes.map((c) => (c.event === 'reload' ? [c.event] : [c.event, c.id, c.left ?? c.record?.title])),
      [
        ['record.created', high.id, 'high'],
        ['record.updated', low.id, 'low'],
        ['record.updated', high.id, true],
        ['record.deleted', low.id, 'low'],
      ],
    );
    stop();

    // A filter naming what the schema lacks is refused when subscribed, with the query's code.
    const errors: RoostError[] = [];
    const shared = realtime({ baseUrl: s.url, token: ann });
    posts.live({ filter: 'nothing = 1' }, () => {}, { realtime: shared, onError: (e) => errors.push(e) });
    for (let waited = 0; errors.length === 0 && waited < 8000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual([errors[0]?.status, errors[0]?.code], [422, 'invalid_filter']);
    shared.close();
  });
});
