import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStream, streamsOf } from '../helpers/event-stream.js';
import { useServer } from '../helpers/test-server.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { onPostgres, useTwoProcesses } from '../scale/scale-helpers.js';
import { programCaller } from '../../src/users/index.js';

/**
 * Live queries of the collections (issue 39, item 5; docs/collections.md "Live queries"): a topic
 * `records/<collection>?filter=...` hears the changes of the records the collection's `view`
 * rule lets the subscriber see and its filter matches (realtime/families/record-family.ts); an
 * update that takes a record out of them is told as `left`; a deletion is heard by those it
 * matched; webhooks get the whole record; a change on one process reaches a subscriber of another.
 */

const own = 'owner = @request.auth.id';
const notes = {
  schema: { type: 'object', properties: { text: { type: 'string' } } },
  rules: { list: own, view: own, create: '', update: own, delete: own },
};
const tasks = {
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      status: { enum: ['open', 'done'], default: 'open' },
      priority: { type: 'integer' },
      author: { type: 'string', 'x-relation': 'authors' },
    },
  },
  rules: { list: '', view: '', create: '', update: '', delete: '' },
};
const authors = {
  schema: { type: 'object', properties: { name: { type: 'string' } } },
  rules: { list: '', view: '', create: '', update: '', delete: '' },
};
const secrets = {
  schema: { type: 'object', properties: { text: { type: 'string' } } },
  rules: { list: null, view: null, create: null, update: null, delete: null },
};
/** A view rule through a relation and one on the caller's groups. */
const comments = {
  schema: { type: 'object', properties: { text: { type: 'string' }, note: { type: 'string', 'x-relation': 'notes' } } },
  rules: { list: '', view: 'note.owner = @request.auth.id', create: '', update: null, delete: null },
};
const memos = {
  schema: { type: 'object', properties: { text: { type: 'string' } } },
  rules: { list: '', view: '@request.auth.groups ?= "team"', create: '', update: null, delete: null },
};
const collections = { notes, tasks, authors, secrets, comments, memos };

/** The topic of a live query with `filter`, URL-encoded as docs/collections.md says. */
const query = (collection: string, filter: string) => `records/${collection}?filter=${encodeURIComponent(filter)}`;

describe('live queries of collections over HTTP', () => {
  const s = useServer({ collections });
  const open = streamsOf(() => s.url);
  const records = (collection: string) => `/api/collections/${collection}/records`;
  let ann: string;
  let bob: string;
  before(async () => {
    ann = await s.createUser('ann');
    bob = await s.createUser('bob');
  });

  test('under an owner rule each subscriber hears its own records, anonymous callers none', async () => {
    const annStream = await open({ token: ann, topics: ['records/notes'] });
    const bobStream = await open({ token: bob, topics: ['records/notes'] });
    const anonymous = await open({ topics: ['records/notes'] });
    const admin = await open({ token: await s.adminToken(), topics: ['records/notes'] });
    const made = await s.request(records('notes'), { text: 'ann 1' }, { token: ann });
    assert.equal(made.status, 201);
    const heard = await annStream.next('records/notes');
    assert.deepEqual(heard.data, { event: 'record.created', collection: 'notes', id: made.body.id, record: made.body });
    assert.equal((await admin.next('records/notes')).data.id, made.body.id, 'administrators see every record');
    const bobs = await s.request(records('notes'), { text: 'bob 1' }, { token: bob });
    assert.equal((await bobStream.next('records/notes')).data.record.text, 'bob 1');
    // A record nobody owns: `owner = @request.auth.id` shows it to no anonymous caller.
    await s.request(records('notes'), { text: 'by nobody' });
    assert.deepEqual(await anonymous.quiet(), []);
    assert.deepEqual(
      (await annStream.quiet()).map((e) => e.data.record.text),
      [],
      "ann hears neither bob's record nor nobody's",
    );
    assert.deepEqual(
      (await bobStream.quiet()).map((e) => e.data.id),
      [],
    );
    // A deletion is heard by who could see the record: its owner (and administrators), with the record as it was.
    const gone = await s.request(`${records('notes')}/${bobs.body.id}`, undefined, { method: 'DELETE', token: bob });
    assert.equal(gone.status, 204);
    const deleted = await bobStream.next('records/notes');
    assert.deepEqual(deleted.data, {
      event: 'record.deleted',
      collection: 'notes',
      id: bobs.body.id,
      record: bobs.body,
    });
    assert.deepEqual(await annStream.quiet(300), []);
  });

  test('a filter hears only matching changes; a record that stops matching is told as left', async () => {
    const topic = query('tasks', 'status = "open" && priority >= 2');
    const stream = await open({ token: ann, topics: [topic] });
    const low = await s.request(records('tasks'), { title: 'low', priority: 1 }, { token: bob });
    const high = await s.request(records('tasks'), { title: 'high', priority: 3 }, { token: bob });
    const created = await stream.next(topic);
    assert.deepEqual([created.data.event, created.data.record.title], ['record.created', 'high']);
    // Into the filter: heard as an update with the record.
    await s.request(`${records('tasks')}/${low.body.id}`, { priority: 2 }, { method: 'PATCH', token: bob });
    const entered = await stream.next(topic);
    assert.deepEqual(
      [entered.data.event, entered.data.id, entered.data.record.priority],
      ['record.updated', low.body.id, 2],
    );
    // Out of it: `left`, without the record.
    await s.request(`${records('tasks')}/${high.body.id}`, { status: 'done' }, { method: 'PATCH', token: bob });
    const left = await stream.next(topic);
    assert.deepEqual(left.data, { event: 'record.updated', collection: 'tasks', id: high.body.id, left: true });
    // Changes outside it, and the deletion of a record it no longer matches, are not heard.
    await s.request(`${records('tasks')}/${high.body.id}`, { title: 'still done' }, { method: 'PATCH', token: bob });
    await s.request(`${records('tasks')}/${high.body.id}`, undefined, { method: 'DELETE', token: bob });
    assert.deepEqual(await stream.quiet(), []);
    // The deletion of one it matches is.
    await s.request(`${records('tasks')}/${low.body.id}`, undefined, { method: 'DELETE', token: bob });
    const deleted = await stream.next(topic);
    assert.deepEqual([deleted.data.event, deleted.data.record.title], ['record.deleted', 'low']);
  });

  test('a filter through a relation reads the related record', async () => {
    const ada = await s.request(records('authors'), { name: 'Ada' });
    const other = await s.request(records('authors'), { name: 'Brian' });
    const topic = query('tasks', 'author.name = "Ada"');
    const stream = await open({ token: ann, topics: [topic] });
    await s.request(records('tasks'), { title: 'by brian', author: other.body.id });
    await s.request(records('tasks'), { title: 'by ada', author: ada.body.id });
    assert.equal((await stream.next(topic)).data.record.title, 'by ada');
    assert.deepEqual(await stream.quiet(300), []);
  });

  test("a view rule through a relation reads the related record: a note's owner hears its comments", async () => {
    const stream = await open({ token: ann, topics: ['records/comments'] });
    const bobStream = await open({ token: bob, topics: ['records/comments'] });
    const note = await s.request(records('notes'), { text: 'ann note' }, { token: ann });
    const made = await s.request(records('comments'), { text: 'nice', note: note.body.id }, { token: bob });
    assert.equal(made.status, 201);
    assert.equal((await stream.next('records/comments')).data.record.text, 'nice');
    assert.deepEqual(await bobStream.quiet(300), [], "bob wrote it, but it is on ann's note");
  });

  test("a change of the subscriber's groups applies to its next event", async () => {
    const carol = await s.createUser('carol');
    const stream = await open({ token: carol, topics: ['records/memos'] });
    await s.request(records('memos'), { text: 'before' });
    assert.deepEqual(await stream.quiet(300), []);
    const admin = await s.adminToken();
    await s.users('setUser', { identity: 'carol', values: { groups: ['team'] } }, { token: admin });
    await s.request(records('memos'), { text: 'after' });
    assert.equal((await stream.next('records/memos')).data.record.text, 'after');
  });

  test('a filter that reads the time is asked with the time of each event', async () => {
    const topic = query('tasks', 'created >= @todayStart && title ~ "timed"');
    const stream = await open({ token: ann, topics: [topic] });
    await s.request(records('tasks'), { title: 'other' });
    await s.request(records('tasks'), { title: 'timed' });
    assert.equal((await stream.next(topic)).data.record.title, 'timed');
    assert.deepEqual(await stream.quiet(300), []);
  });

  test('a large record is carried in part on deletion: who may see it is still exact', async () => {
    const big = 'x'.repeat(7000);
    const annStream = await open({ token: ann, topics: ['records/notes', query('notes', 'text ~ "x"')] });
    const bobStream = await open({ token: bob, topics: ['records/notes'] });
    const made = await s.request(records('notes'), { text: big }, { token: ann });
    assert.equal(made.status, 201);
    assert.equal((await annStream.next('records/notes')).data.record.text, big);
    await annStream.next();
    await s.request(`${records('notes')}/${made.body.id}`, undefined, { method: 'DELETE', token: ann });
    const deleted = await annStream.next('records/notes');
    assert.deepEqual(deleted.data, { event: 'record.deleted', collection: 'notes', id: made.body.id });
    // The filter reads a field not carried: the deletion is told to whoever the view rule lets see it.
    assert.equal((await annStream.next(query('notes', 'text ~ "x"'))).data.event, 'record.deleted');
    assert.deepEqual(await bobStream.quiet(300), []);
  });

  test('a bad topic is refused before the stream starts', async () => {
    const refused = async (topic: string, token?: string) => {
      const stream = await openStream(s.url, { topics: [topic], ...(token ? { token } : {}) });
      return [stream.status, stream.failure.code];
    };
    assert.deepEqual(await refused('records/nosuch'), [404, 'unknown_collection']);
    assert.deepEqual(await refused('records/Bad-Name'), [422, 'validation_failure']);
    assert.deepEqual(await refused('records/notes/x'), [422, 'validation_failure']);
    assert.deepEqual(await refused('records/notes?filter='), [422, 'validation_failure']);
    assert.deepEqual(await refused('records/notes?sort=x'), [422, 'validation_failure']);
    assert.deepEqual(await refused(query('notes', 'text = ')), [422, 'invalid_filter']);
    assert.deepEqual(await refused(query('notes', 'nosuch = 1')), [422, 'invalid_filter']);
    assert.deepEqual(await refused(query('notes', 'text = 1')), [422, 'invalid_filter']);
    const named = await openStream(s.url, { topics: [query('notes', 'nosuch = 1')] });
    assert.equal(named.failure.invalid[0][0], 'topic');
    // A `null` view rule: administrators only.
    assert.deepEqual(await refused('records/secrets'), [401, 'not_signed_in']);
    assert.deepEqual(await refused('records/secrets', ann), [403, 'not_allowed']);
    const admin = await open({ token: await s.adminToken(), topics: ['records/secrets'] });
    assert.equal(admin.status, 200);
  });
});

describe('webhooks of record events', () => {
  const s = useServer({ collections: { notes } });
  const ADMIN = programCaller('test').principal;

  test('creations, updates and deletions of a collection are posted with the whole record', async () => {
    const hook = await receiver();
    try {
      await s.roost.webhooks.add(ADMIN, { url: hook.url, service: 'notes', kinds: [] });
      const ann = await s.createUser('ann');
      const path = '/api/collections/notes/records';
      const made = await s.request(path, { text: 'one' }, { token: ann });
      const changed = await s.request(`${path}/${made.body.id}`, { text: 'two' }, { method: 'PATCH', token: ann });
      await s.request(`${path}/${made.body.id}`, undefined, { method: 'DELETE', token: ann });
      await s.roost.webhooks.idle();
      const bodies = hook.received
        .map((r) => JSON.parse(r.body))
        .sort(
          (x, y) =>
            ['record.created', 'record.updated', 'record.deleted'].indexOf(x.event) -
            ['record.created', 'record.updated', 'record.deleted'].indexOf(y.event),
        );
      assert.deepEqual(
        bodies.map(({ at: _at, ...rest }) => rest),
        [
          { event: 'record.created', collection: 'notes', id: made.body.id, record: made.body },
          { event: 'record.updated', collection: 'notes', id: made.body.id, record: changed.body },
          { event: 'record.deleted', collection: 'notes', id: made.body.id, record: changed.body },
        ],
      );
      assert.equal(hook.received[0]?.headers['x-roost-event'], 'record.created');
      await assert.rejects(s.roost.webhooks.add(ADMIN, { url: hook.url, service: 'notes', kinds: ['item.created'] }));
    } finally {
      await hook.close();
    }
  });
});

describe('live queries across two processes on PostgreSQL', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  // First, so that the streams are closed before the processes stop (hooks run in this order).
  const openOnB = streamsOf(() => two.b.url);
  const two = useTwoProcesses({ collections });

  test('a change on A reaches the subscribers on B its rule and filter let hear it', async () => {
    const { a } = two;
    const ann = await a.createUser('ann');
    const bob = await a.createUser('bob');
    const topic = query('notes', 'text ~ "hello"');
    const annOnB = await openOnB({ token: ann, topics: [topic] });
    const bobOnB = await openOnB({ token: bob, topics: ['records/notes'] });
    const path = '/api/collections/notes/records';
    await a.request(path, { text: 'not this' }, { token: ann });
    const made = await a.request(path, { text: 'hello from A' }, { token: ann });
    const heard = await annOnB.next(topic);
    assert.deepEqual(heard.data, { event: 'record.created', collection: 'notes', id: made.body.id, record: made.body });
    await a.request(`${path}/${made.body.id}`, { text: 'bye' }, { method: 'PATCH', token: ann });
    assert.deepEqual((await annOnB.next(topic)).data.left, true);
    await a.request(`${path}/${made.body.id}`, { text: 'hello again' }, { method: 'PATCH', token: ann });
    assert.equal((await annOnB.next(topic)).data.record.text, 'hello again');
    await a.request(`${path}/${made.body.id}`, undefined, { method: 'DELETE', token: ann });
    const deleted = await annOnB.next(topic);
    assert.deepEqual([deleted.data.event, deleted.data.record.text], ['record.deleted', 'hello again']);
    // A record larger than a NOTIFY payload: its events carry it in part and still cross.
    const big = await a.request(path, { text: `hello ${'x'.repeat(9000)}` }, { token: ann });
    assert.equal((await annOnB.next(topic)).data.record.text.length, 9006);
    await a.request(`${path}/${big.body.id}`, { text: `hello ${'y'.repeat(9000)}` }, { method: 'PATCH', token: ann });
    assert.equal((await annOnB.next(topic)).data.record.text[6], 'y');
    await a.request(`${path}/${big.body.id}`, undefined, { method: 'DELETE', token: ann });
    assert.deepEqual((await annOnB.next(topic)).data, {
      event: 'record.deleted',
      collection: 'notes',
      id: big.body.id,
    });
    assert.deepEqual(await bobOnB.quiet(), [], "bob hears none of ann's records");
  });
});
