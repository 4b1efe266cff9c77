import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStream, type OpenStream, streamsOf } from '../helpers/event-stream.js';
import { authCookie, CROSS_SITE } from '../helpers/pages.js';
import { PASSWORD, useServer, type TestServer } from '../helpers/test-server.js';

const subscribe = (s: TestServer, clientId: unknown, topics: unknown, token?: string) =>
  s.request('/api/realtime', { clientId, topics }, token ? { token } : {});

/**
 * Who hears what (issue 21): a subscriber never gets an event about an item it may not read, a
 * change of permissions or groups applies to open streams, the token mode's posted
 * subscriptions, and every refusal in Roost's failure body.
 */
describe('live changes: permissions, token mode, refusals', () => {
  const s = useServer({ dataStores: { data: {}, private: {}, team: {} } });
  const open = streamsOf(() => s.url);
  let alice: string;
  let bob: string;
  let admin: string;
  const setRead = async (store: string, groups: string[]) => {
    const res = await s.request(
      `/${store}/api/setPermissions`,
      { permissions: [{ permission: 'getItem', groups, action: 'replace' }] },
      { token: admin },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  before(async () => {
    alice = await s.createUser('alice');
    bob = await s.createUser('bob', { groups: ['team'] });
    admin = await s.adminToken();
    await setRead('private', ['sys:owner', 'admins']);
    await setRead('team', ['team', 'admins']);
  });

  test('an owner-only store: each hears of its own items, administrators of all', async () => {
    const [a, b, root] = await Promise.all([
      open({ token: alice, topics: ['items/private'] }),
      open({ token: bob, topics: ['items/private'] }),
      open({ token: admin, topics: ['items/private'] }),
    ]);
    await s.request('/private/api/newItem', { key: 'a1', value: 'secret of alice' }, { token: alice });
    await s.request('/private/api/newItem', { key: 'b1', value: 'secret of bob' }, { token: bob });
    assert.deepEqual(
      (await a.quiet()).map((e) => e.data.key),
      ['a1'],
    );
    assert.deepEqual(
      (await b.quiet(0)).map((e) => e.data.key),
      ['b1'],
    );
    assert.deepEqual(
      (await root.quiet(0)).map((e) => e.data.key),
      ['a1', 'b1'],
    );
  });

  test('an item given to another: the new owner gets it whole, the old one only that it left', async () => {
    const [a, b] = await Promise.all([
      open({ token: alice, topics: ['items/private'] }),
      open({ token: bob, topics: ['items/private'] }),
    ]);
    await s.request('/private/api/newItem', { key: 'gift', value: 'for bob' }, { token: alice });
    await a.next();
    await s.request('/private/api/setOwner', { key: 'gift', newOwner: 'bob' }, { token: admin });
    const left = await a.next();
    assert.deepEqual(left.data, { event: 'item.owner_changed', store: 'private', key: 'gift', id: left.data.id });
    const got = await b.next();
    assert.equal(got.data.item.value, 'for bob');
    await s.request('/private/api/removeItem', { key: 'gift' }, { token: admin });
    assert.equal((await b.next()).data.event, 'item.removed');
    assert.deepEqual(await a.quiet(), []);
  });

  test('a change of permissions applies to open streams at once', async () => {
    const b = await open({ token: bob, topics: ['items/private'] });
    await setRead('private', ['sys:authenticated']);
    await s.request('/private/api/newItem', { key: 'now-public', value: 1 }, { token: alice });
    assert.equal((await b.next()).data.key, 'now-public');
    await setRead('private', ['sys:owner', 'admins']);
    await s.request('/private/api/newItem', { key: 'private-again', value: 1 }, { token: alice });
    assert.deepEqual(await b.quiet(), []);
  });

  test('a change of groups applies to open streams at once', async () => {
    const carol = await s.createUser('carol', { groups: ['team'] });
    const c = await open({ token: carol, topics: ['items/team'] });
    await s.request('/team/api/newItem', { key: 't1', value: 1 }, { token: bob });
    assert.equal((await c.next()).data.key, 't1');
    await s.users('setUser', { identity: 'carol', values: { groups: [] } }, { token: admin });
    await s.request('/team/api/newItem', { key: 't2', value: 1 }, { token: bob });
    assert.deepEqual(await c.quiet(), []);
  });

  test('refused before the stream starts, in the failure body', async () => {
    const anonymous = await openStream(s.url, { topics: ['items/data'] });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.failure.code, 'not_signed_in');
    const outsider = await openStream(s.url, { token: alice, topics: ['items/team'] });
    assert.equal(outsider.status, 403);
    assert.equal(outsider.failure.code, 'not_allowed');
    const noStore = await openStream(s.url, { token: alice, topics: ['items/nothing'] });
    assert.equal(noStore.status, 404);
    assert.equal(noStore.failure.code, 'unknown_store');
    const account = await openStream(s.url, { topics: ['account'] });
    assert.equal(account.status, 401);
    for (const topic of ['items/data/x', 'files/data/../x', 'items/data?keys=', 'x'.repeat(5000), 'nothing']) {
      const bad = await openStream(s.url, { token: alice, topics: [topic] });
      assert.equal(bad.status, 422, topic);
      assert.equal(bad.failure.code, 'validation_failure');
      assert.equal(bad.failure.result, false);
    }
    // An empty prefix says so, rather than that prefix= is not allowed.
    const emptyPrefix = await openStream(s.url, { token: alice, topics: ['items/data?prefix='] });
    assert.equal(emptyPrefix.status, 422);
    assert.match(emptyPrefix.failure.message, /empty prefix/);
    assert.deepEqual(emptyPrefix.failure.invalid, [
      ['topic', 'The topic has an empty prefix: leave ?prefix= out to hear every item.'],
    ]);
  });

  test('token mode: a stream opened without a token takes the token of its subscriptions', async () => {
    const stream = await open({});
    assert.equal(stream.status, 200);
    const posted = await subscribe(s, stream.clientId, ['items/private', 'account'], bob);
    assert.deepEqual(posted.body, { result: true, clientId: stream.clientId, topics: ['items/private', 'account'] });
    await s.request('/private/api/newItem', { key: 'tm-a', value: 1 }, { token: alice });
    await s.request('/private/api/newItem', { key: 'tm-b', value: 1 }, { token: bob });
    assert.deepEqual(
      (await stream.quiet()).map((e) => e.data.key),
      ['tm-b'],
    );
    // Now bob's: another user may not take it over, anybody may not read an account through it.
    const taken = await subscribe(s, stream.clientId, ['items/private'], alice);
    assert.equal(taken.status, 403);
    assert.equal(taken.body.code, 'not_allowed');
    // An empty list ends every subscription.
    assert.deepEqual((await subscribe(s, stream.clientId, [], bob)).body.topics, []);
    await s.request('/private/api/newItem', { key: 'tm-c', value: 1 }, { token: bob });
    assert.deepEqual(await stream.quiet(), []);
  });

  test('a signed-in stream is steered by its own user only, never by an anonymous post', async () => {
    const stream = await open({ token: alice, topics: ['items/data?keys=nothing'] });
    // Anonymous callers may not read items/private: the post must not be checked with alice's rights.
    const anonymous = await subscribe(s, stream.clientId, ['items/private']);
    assert.equal(anonymous.status, 401, JSON.stringify(anonymous.body));
    assert.equal(anonymous.body.code, 'not_signed_in');
    const cleared = await subscribe(s, stream.clientId, []);
    assert.equal(cleared.status, 401);
    const other = await subscribe(s, stream.clientId, ['items/data'], bob);
    assert.equal(other.status, 403);
    assert.equal(other.body.code, 'not_allowed');
    // The same user with another session, and the cookie of the same user, may.
    const again = await s.users('token', { identity: 'alice', password: PASSWORD });
    const token = again.body.token as string;
    assert.equal((await subscribe(s, stream.clientId, ['items/data'], token)).status, 200);
    const cookie = await authCookie(s, 'alice');
    const byCookie = await s.request(
      '/api/realtime',
      { clientId: stream.clientId, topics: ['items/data', 'items/private'] },
      { headers: { cookie, origin: s.url } },
    );
    assert.equal(byCookie.status, 200, JSON.stringify(byCookie.body));
    // The refused posts changed nothing that was asked after them.
    await s.request('/data/api/newItem', { key: 'owned-steer', value: 1 }, { token: alice });
    assert.equal((await stream.next()).data.key, 'owned-steer');
  });

  test("an anonymous stream: anonymous posts steer it, the first signed-in post makes it that user's", async () => {
    const stream = await open({});
    // Anonymous callers may read nothing here: an empty list is what an anonymous post may set.
    const posted = await subscribe(s, stream.clientId, []);
    assert.deepEqual(posted.body, { result: true, clientId: stream.clientId, topics: [] });
    const refused = await subscribe(s, stream.clientId, ['items/data']);
    assert.equal(refused.body.code, 'not_signed_in');
    assert.equal((await subscribe(s, stream.clientId, ['items/data'], alice)).status, 200);
    const anonymous = await subscribe(s, stream.clientId, []);
    assert.equal(anonymous.status, 401);
  });

  test('subscription posts: missing, wrong-typed, unknown and cross-site ones are refused', async () => {
    const stream = await open({ token: alice });
    const cases: Array<[unknown, unknown, number, string]> = [
      [undefined, ['items/data'], 422, 'validation_failure'],
      [stream.clientId, undefined, 422, 'validation_failure'],
      [stream.clientId, 'items/data', 200, ''],
      [stream.clientId, [1, 2], 422, 'validation_failure'],
      [{ $ne: '' }, ['items/data'], 422, 'validation_failure'],
      ['x'.repeat(65), ['items/data'], 422, 'validation_failure'],
      ['no-such-stream', ['items/data'], 404, 'unknown_stream'],
      [stream.clientId, ['items/private', 'items/nothing'], 404, 'unknown_store'],
    ];
    for (const [clientId, topics, status, code] of cases) {
      const res = await subscribe(s, clientId, topics, alice);
      assert.equal(res.status, status, JSON.stringify([clientId, topics, res.body]));
      if (code) assert.equal(res.body.code, code);
    }
    // A body that is not an object is malformed, as on every route (docs/errors.md).
    for (const raw of ['[1]', '"items/data"', '7']) {
      const res = await s.request('/api/realtime', undefined, {
        raw,
        token: alice,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400, raw);
      assert.equal(res.body.code, 'malformed_body');
    }
    // Every refused topic is named `topic`, whether opened or posted.
    const unknown = await subscribe(s, stream.clientId, ['items/nothing'], alice);
    assert.deepEqual(unknown.body.invalid, [['topic', 'unknown_store']]);
    const unknownOpen = await openStream(s.url, { token: alice, topics: ['items/nothing'] });
    assert.deepEqual(unknownOpen.failure.invalid, [['topic', 'unknown_store']]);
    // A refused post changes nothing: the stream keeps what it had.
    await s.request('/data/api/newItem', { key: 'still', value: 1 }, { token: alice });
    assert.equal((await stream.next()).data.key, 'still');

    const cookie = await authCookie(s, 'alice');
    const crossSite = await s.request(
      '/api/realtime',
      { clientId: stream.clientId, topics: [] },
      { headers: { cookie, ...CROSS_SITE } },
    );
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.body.code, 'cross_site_request');
  });

  test('cookie mode: the browser cookie signs the stream in', async () => {
    const cookie = await authCookie(s, 'alice');
    const stream = await open({ cookie, topics: ['items/private'] });
    assert.equal(stream.status, 200);
    await s.request('/private/api/newItem', { key: 'by-cookie', value: 1 }, { token: alice });
    assert.equal((await stream.next()).data.key, 'by-cookie');
  });
});

describe('live changes: limits', () => {
  const s = useServer({ realtime: { maxStreamsPerUser: 2, maxTopicsPerStream: 3, maxStreamsPerAddress: 5 } });
  const open = streamsOf(() => s.url);

  test('streams per user and per address, subscriptions per stream', async () => {
    const alice = await s.createUser('alice');
    const first = await open({ token: alice });
    await open({ token: alice });
    const third = await openStream(s.url, { token: alice });
    assert.equal(third.status, 429);
    assert.equal(third.failure.code, 'too_many_streams');
    first.close();
    await first.ended;
    let again: OpenStream | undefined;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      again = await open({ token: alice });
      if (again.status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(again?.status, 200);

    // Many at once: the limit holds when the opens race (the room is checked again after the
    // topics' permissions are read).
    const carol = await s.createUser('carol');
    const racing = await Promise.all(Array.from({ length: 8 }, () => openStream(s.url, { token: carol })));
    assert.equal(racing.filter((r) => r.status === 200).length, 2);
    assert.ok(racing.filter((r) => r.status !== 200).every((r) => r.failure.code === 'too_many_streams'));
    for (const r of racing) r.close();
    await Promise.all(racing.map((r) => r.ended));
    // The server hears of the closes a moment after the client has closed.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const topics = ['items/data?keys=a', 'items/data?keys=b', 'items/data?keys=c', 'items/data?keys=d'];
    const bob = await s.createUser('bob');
    const tooMany = await s.request(
      `/api/realtime?${topics.map((t) => `topic=${encodeURIComponent(t)}`).join('&')}`,
      undefined,
      {
        token: bob,
      },
    );
    assert.equal(tooMany.status, 422);
    assert.equal(tooMany.body.code, 'too_many_subscriptions');

    // Two of alice's and three anonymous ones: the address holds five.
    for (let i = 0; i < 3; i++) assert.equal((await open({})).status, 200);
    const crowded = await openStream(s.url, {});
    assert.equal(crowded.status, 429);
    assert.equal(crowded.failure.code, 'too_many_streams');
  });
});
