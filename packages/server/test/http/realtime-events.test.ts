import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStream, type OpenStream } from '../helpers/event-stream.js';
import { useServer } from '../helpers/test-server.js';

/**
 * Every event kind on every topic over a real server (issue 21): the data carries the shapes of
 * getItem and of the file listing, the operation and an id (docs/realtime.md).
 */
describe('live changes: events of items, files and accounts', () => {
  const s = useServer({ dataStores: { data: {}, notes: {} }, fileStores: { files: {} } });
  const streams: OpenStream[] = [];
  let alice: string;
  let admin: string;
  const open = async (options: Parameters<typeof openStream>[1]) => {
    const stream = await openStream(s.url, options);
    streams.push(stream);
    return stream;
  };
  before(async () => {
    alice = await s.createUser('alice');
    admin = await s.adminToken();
  });
  after(() => {
    for (const stream of streams) stream.close();
  });

  test('the stream: event-stream headers, a connect event with a client id and an id to resume from', async () => {
    const stream = await open({ token: alice, topics: ['items/data'] });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.headers.get('cache-control'), 'no-store');
    assert.equal(stream.headers.get('x-content-type-options'), 'nosniff');
    assert.match(stream.clientId, /^[A-Za-z0-9_-]{22}$/);
    assert.match(stream.connectId ?? '', /^[0-9a-f]{8}-\d+$/);
  });

  test('items: created, replaced, owner changed, removed, each with what getItem answers', async () => {
    const stream = await open({ token: alice, topics: ['items/data'] });
    await s.request('/data/api/newItem', { key: 'k1', value: 'one' }, { token: alice });
    const created = await stream.next('items/data');
    const got = await s.request('/data/api/getItem', { key: 'k1' }, { token: alice });
    const { items: _items, result: _result, ...item } = got.body;
    assert.deepEqual(created.data, { event: 'item.created', store: 'data', key: 'k1', id: item.id, item });
    assert.match(created.id ?? '', /^[0-9a-f]{8}-\d+$/);

    await s.request('/data/api/setItem', { key: 'k1', value: 2 }, { token: alice });
    const replaced = await stream.next('items/data');
    assert.equal(replaced.data.event, 'item.replaced');
    assert.equal(replaced.data.item.value, 2);

    await s.createUser('bob');
    await s.request('/data/api/setOwner', { key: 'k1', newOwner: 'bob' }, { token: admin });
    const owned = await stream.next('items/data');
    assert.equal(owned.data.event, 'item.owner_changed');
    assert.equal(owned.data.item.owner, 'bob');

    await s.request('/data/api/removeItem', { key: 'k1' }, { token: admin });
    const removed = await stream.next('items/data');
    assert.deepEqual(removed.data, { event: 'item.removed', store: 'data', key: 'k1', id: item.id });
    assert.ok(Number(removed.id?.split('-')[1]) > Number(created.id?.split('-')[1]));
  });

  test('items narrowed by keys and by prefix; another store is not heard', async () => {
    const byKeys = await open({ token: alice, topics: ['items/notes?keys=a,b'] });
    const byPrefix = await open({ token: alice, topics: ['items/notes?prefix=todo/'] });
    for (const key of ['a', 'todo/1', 'c', 'b'])
      await s.request('/notes/api/newItem', { key, value: key }, { token: alice });
    await s.request('/data/api/newItem', { key: 'a', value: 'elsewhere' }, { token: alice });
    assert.deepEqual(
      (await byKeys.quiet()).map((e) => [e.event, e.data.key]),
      [
        ['items/notes?keys=a,b', 'a'],
        ['items/notes?keys=a,b', 'b'],
      ],
    );
    assert.deepEqual(
      (await byPrefix.quiet(0)).map((e) => e.data.key),
      ['todo/1'],
    );
  });

  test('one event matching two subscriptions comes once under each', async () => {
    const stream = await open({ token: alice, topics: ['items/notes', 'items/notes?keys=twice'] });
    await s.request('/notes/api/newItem', { key: 'twice', value: 1 }, { token: alice });
    const events = [await stream.next(), await stream.next()];
    assert.deepEqual(events.map((e) => e.event).sort(), ['items/notes', 'items/notes?keys=twice']);
    assert.equal(events[0]?.id, events[1]?.id);
  });

  test('files: created, written, moved, owner changed, removed, with what the listing shows', async () => {
    const dir = await open({ token: alice, topics: ['files/files/docs'] });
    const tree = await open({ token: alice, topics: ['files/files/**'] });
    assert.equal((await s.request('/files/api/@newItem', { name: 'docs', type: 'd' }, { token: alice })).status, 200);
    const write = await s.request(
      '/files/api/docs/@newItem',
      { name: 'a.txt', type: 'f', contents: 'hello' },
      { token: alice },
    );
    assert.equal(write.status, 200, JSON.stringify(write.body));
    const created = await dir.next('files/files/docs');
    const listing = await s.request('/files/api/docs/@list', undefined, { token: alice });
    assert.deepEqual(created.data, {
      event: 'file.created',
      store: 'files',
      path: 'docs/a.txt',
      entry: listing.body.items.find((e: { name: string }) => e.name === 'a.txt'),
    });
    await s.request('/files/api/docs/a.txt/@write', { contents: 'hello again' }, { token: alice });
    assert.equal((await dir.next()).data.event, 'file.written');
    await s.request('/files/api/docs/a.txt/@move', { newpath: '/docs/b.txt' }, { token: alice });
    const moved = await dir.next();
    assert.deepEqual(
      [moved.data.event, moved.data.path, moved.data.to, moved.data.entry.name],
      ['file.moved', 'docs/a.txt', 'docs/b.txt', 'b.txt'],
    );
    await s.request('/files/api/docs/b.txt/@setOwner', { owner: 'admin' }, { token: admin });
    assert.equal((await dir.next()).data.event, 'file.owner_changed');
    await s.request('/files/api/docs/b.txt/@removeItem', {}, { token: admin });
    assert.deepEqual((await dir.next()).data, { event: 'file.removed', store: 'files', path: 'docs/b.txt' });
    // The whole tree heard the directory too, and everything in it.
    const kinds = (await tree.quiet()).map((e) => `${e.data.event} ${e.data.path}`);
    assert.deepEqual(kinds.slice(0, 2), ['file.created docs', 'file.created docs/a.txt']);
    assert.equal(kinds.length, 6);
  });

  test('account: a change of the own profile, and signing out elsewhere; not another account', async () => {
    const carol = await s.createUser('carol');
    const other = await s.users('token', { identity: 'carol', password: 'a-good-password' });
    const stream = await open({ token: carol, topics: ['account'] });
    await s.users('update', { realname: 'Carol C' }, { token: carol });
    const changed = await stream.next('account');
    assert.equal(changed.data.event, 'account.changed');
    assert.equal(changed.data.user.realname, 'Carol C');
    assert.equal(changed.data.user.name, 'carol');
    await s.users('signout', {}, { token: other.body.token });
    assert.equal((await stream.next('account')).data.event, 'account.signed_out');
    await s.users('update', { realname: 'Alice A' }, { token: alice });
    assert.deepEqual(await stream.quiet(), []);
  });

  test('signing the stream out, or disabling the account, ends the stream with a reason', async () => {
    const dave = await s.createUser('dave');
    const stream = await open({ token: dave, topics: ['account', 'items/data'] });
    await s.users('signout', {}, { token: dave });
    const told = await stream.next('account');
    assert.deepEqual(told.data, { event: 'account.signed_out' });
    assert.equal((await stream.next('close')).data.code, 'signed_out');
    await stream.ended;

    const erin = await s.createUser('erin');
    const second = await open({ token: erin, topics: ['items/data'] });
    await s.users('setUser', { identity: 'erin', values: { active: false } }, { token: admin });
    assert.equal((await second.next('close')).data.code, 'signed_out');
  });
});
