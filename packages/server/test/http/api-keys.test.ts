import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStream } from '../helpers/event-stream.js';
import { useServer, type CallOptions } from '../helpers/test-server.js';

/**
 * Issue 42, item 4: API keys. An administrator makes a key scoped to stores and collections and
 * operations; the key, sent as `Authorization: Bearer roost_…`, reaches every service within its
 * scopes and is refused outside them with Roost's failure body; an expired or revoked key is
 * refused at once; a key never administers, never manages accounts nor keys.
 */
const posts = {
  schema: { type: 'object', properties: { title: { type: 'string' } } },
  rules: { list: null, view: null, create: null, update: null, delete: null },
};

describe('API keys over HTTP', () => {
  let now = Date.parse('2026-12-02T10:00:00Z');
  const clock = { now: () => now };
  const s = useServer({ fileStores: { files: {} }, collections: { posts, drafts: posts } }, { clock });
  const bearer = (key: string, more: CallOptions = {}): CallOptions => ({
    ...more,
    headers: { authorization: `Bearer ${key}`, ...more.headers },
  });
  const makeKey = async (body: unknown) => {
    const made = await s.request('/api/keys', body, { token: await s.adminToken() });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return made.body as { key: { id: string; state: string; created: string }; token: string };
  };

  test('made by an administrator, shown once, listed without its secret, times in ISO 8601', async () => {
    const made = await makeKey({ name: 'ci', scopes: [{ kind: 'store', name: 'data', access: ['read'] }] });
    assert.match(made.token, /^roost_[a-z0-9]{16}_[A-Za-z0-9_-]{43}$/);
    assert.equal(made.key.state, 'active');
    assert.equal(made.key.created, '2026-12-02T10:00:00.000Z');
    const listed = await s.request('/api/keys', undefined, { method: 'GET', token: await s.adminToken() });
    assert.equal(listed.status, 200);
    const text = JSON.stringify(listed.body);
    assert.ok(listed.body.some((k: { id: string }) => k.id === made.key.id));
    assert.ok(!text.includes(made.token.slice(-43)), 'the secret is never answered again');
    assert.ok(!/secret|hash/i.test(text), 'nor its hash');
    const stored = await s.roost.db.selectFrom('api_keys').selectAll().where('id', '=', made.key.id).executeTakeFirst();
    assert.ok(stored && !JSON.stringify(stored).includes(made.token.slice(-43)), 'hashed at rest');
  });

  test('refused to anyone but an administrator, and to every key', async () => {
    const body = { name: 'x', scopes: [{ kind: 'store', name: '*', access: ['manage'] }] };
    const alice = await s.createUser('alice');
    const anonymous = await s.request('/api/keys', body);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'not_signed_in');
    assert.equal((await s.request('/api/keys', body, { token: alice })).body.code, 'not_allowed');
    const manager = await makeKey(body);
    const byKey = await s.request('/api/keys', body, bearer(manager.token));
    assert.equal(byKey.status, 403);
    assert.equal(byKey.body.code, 'not_allowed');
    assert.match(byKey.body.message, /scopes do not cover the API keys/);
    const list = await s.request('/api/keys', undefined, bearer(manager.token, { method: 'GET' }));
    assert.equal(list.status, 403);
    // Accounts: a key gets only what everyone gets from the user service.
    const users = await s.request('/users/api/list', {}, bearer(manager.token));
    assert.notEqual(users.body.result, 1, JSON.stringify(users.body));
    const page = await fetch(`${s.url}/admin`, {
      headers: { authorization: `Bearer ${manager.token}` },
      redirect: 'manual',
    });
    assert.equal(page.status, 303, 'the admin backend sends a key to the sign-in page');
  });

  test('bad input is refused with its field and stores nothing', async () => {
    const admin = await s.adminToken();
    const before = (await s.request('/api/keys', undefined, { method: 'GET', token: admin })).body.length;
    for (const body of [
      { name: '', scopes: [{ kind: 'store', name: 'data', access: ['read'] }] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: [{ kind: 'users', name: 'data', access: ['read'] }] },
      { name: 'x', scopes: [{ kind: 'store', name: 'data', access: ['delete'] }] },
      { name: 'x', scopes: [{ kind: 'store', name: '../x', access: ['read'] }] },
      { name: 'x', scopes: [{ kind: 'store', name: 'data', access: ['read'] }], expires: 'tomorrow' },
      { name: 'x', scopes: [{ kind: 'store', name: 'data', access: ['read'] }], expires: '2020-01-01T00:00:00Z' },
    ]) {
      const answer = await s.request('/api/keys', body, { token: admin });
      assert.equal(answer.status, 422, JSON.stringify(body));
      assert.equal(answer.body.code, 'validation_failure');
      assert.ok(answer.body.invalid.length > 0, JSON.stringify(answer.body));
    }
    assert.equal((await s.request('/api/keys', undefined, { method: 'GET', token: admin })).body.length, before);
  });

  test('every service within scope answers; out of scope is refused with 403', async () => {
    const admin = await s.adminToken();
    await s.request('/data/api/newItem', { key: 'k1', value: 'v1' }, { token: admin });
    await s.request('/files/hello.txt/@write', { contents: 'hi' }, { token: admin });
    const key = (
      await makeKey({
        name: 'worker',
        scopes: [
          { kind: 'store', name: 'data', access: ['read', 'write'] },
          { kind: 'store', name: 'files', access: ['read'] },
          { kind: 'collection', name: 'posts', access: ['read', 'write'] },
        ],
      })
    ).token;
    // Data store: read and write.
    assert.equal((await s.request('/data/api/getItem', { key: 'k1' }, bearer(key))).body.value, 'v1');
    const written = await s.request('/data/api/setItem', { key: 'k1', value: 'v2' }, bearer(key));
    assert.equal(written.status, 200, JSON.stringify(written.body));
    const created = await s.request('/data/api/newItem', { key: 'k2', value: 'new' }, bearer(key));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal((await s.request('/data/api/getItem', { key: 'k2' }, { token: admin })).body.value, 'new');
    // ... but not its permissions (manage).
    const perms = await s.request('/data/api/getPermissions', {}, bearer(key));
    assert.equal(perms.status, 403);
    assert.match(perms.body.message, /getPermissions on data/);
    // File store: read only.
    const read = await s.request('/files/hello.txt/@read', undefined, bearer(key, { method: 'GET' }));
    assert.equal(read.status, 200, JSON.stringify(read.body));
    const write = await s.request('/files/other.txt/@write', { contents: 'no' }, bearer(key));
    assert.equal(write.status, 403, JSON.stringify(write.body));
    assert.equal(write.body.code, 'not_allowed');
    // Collections: posts read and write, drafts nothing.
    const post = await s.request('/api/collections/posts/records', { title: 'by a key' }, bearer(key));
    assert.equal(post.status, 201, JSON.stringify(post.body));
    assert.equal(post.body.owner, null, 'a key owns nothing');
    const listed = await s.request('/api/collections/posts/records', undefined, bearer(key, { method: 'GET' }));
    assert.equal(listed.body.items.length, 1);
    const draft = await s.request('/api/collections/drafts/records', { title: 'no' }, bearer(key));
    assert.equal(draft.status, 403);
    assert.match(draft.body.message, /create on the collection drafts/);
    const drafts = await s.request('/api/collections/drafts/records', undefined, bearer(key, { method: 'GET' }));
    assert.equal(drafts.status, 403);
    // Administrator-only calls (a store's usage, defining collections) stay refused.
    const define = await s.request('/api/collections', { name: 'more', schema: posts.schema }, bearer(key));
    assert.equal(define.status, 403, JSON.stringify(define.body));
  });

  test('a live stream with a key hears the stores within its scopes only', async () => {
    const key = (await makeKey({ name: 'live', scopes: [{ kind: 'store', name: 'data', access: ['read'] }] })).token;
    const auth = { authorization: `Bearer ${key}` };
    const refused = await openStream(s.url, { headers: auth, topics: ['files/files'] });
    assert.equal(refused.status, 403, JSON.stringify(refused.failure));
    const stream = await openStream(s.url, { headers: auth, topics: ['items/data'] });
    try {
      assert.equal(stream.status, 200, JSON.stringify(stream.failure));
      await s.request('/data/api/newItem', { key: 'live-1', value: 'heard' }, { token: await s.adminToken() });
      const event = await stream.next('items/data');
      assert.match(JSON.stringify(event), /"event":"item.created".*"key":"live-1"/);
    } finally {
      stream.close();
    }
  });

  test("a revoked key's live stream ends at once, not at its next check", async () => {
    const made = await makeKey({ name: 'revoked-live', scopes: [{ kind: 'store', name: 'data', access: ['read'] }] });
    const kept = await makeKey({ name: 'kept-live', scopes: [{ kind: 'store', name: 'data', access: ['read'] }] });
    const stream = await openStream(s.url, {
      headers: { authorization: `Bearer ${made.token}` },
      topics: ['items/data'],
    });
    const other = await openStream(s.url, {
      headers: { authorization: `Bearer ${kept.token}` },
      topics: ['items/data'],
    });
    try {
      assert.equal(stream.status, 200, JSON.stringify(stream.failure));
      const revoked = await s.request(`/api/keys/${made.key.id}`, undefined, {
        method: 'DELETE',
        token: await s.adminToken(),
      });
      assert.ok(revoked.status < 300, JSON.stringify(revoked.body));
      // The clock stands still: the periodic check (a minute at least) never comes; the revocation's event does.
      const closing = await stream.next('close', 5000);
      assert.match(JSON.stringify(closing), /signed_out/);
      await stream.ended;
      // Another key's stream goes on.
      await s.request('/data/api/newItem', { key: 'after-revoke', value: 1 }, { token: await s.adminToken() });
      assert.match(JSON.stringify(await other.next('items/data')), /after-revoke/);
    } finally {
      stream.close();
      other.close();
    }
  });

  test('hostile Bearer values are refused with invalid_api_key, never crash nor match', async () => {
    const real = (await makeKey({ name: 'real', scopes: [{ kind: 'store', name: 'data', access: ['read'] }] })).token;
    const id = real.slice(6, 22);
    for (const value of [
      'roost_',
      'roost_x',
      `roost_${id}_`,
      `roost_${id}_${'A'.repeat(43)}`,
      `roost_${id.toUpperCase()}_${real.slice(-43)}`,
      `${real}x`,
      `roost_${'a'.repeat(16)}_${real.slice(-43)}`,
      `roost_${id}_${real.slice(-43).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`,
      `roost_${'x'.repeat(10_000)}`,
      `roost_${id}_%00${real.slice(-40)}`,
    ]) {
      const answer = await s.request('/data/api/getItem', { key: 'k1' }, bearer(value));
      assert.equal(answer.status, 401, value.slice(0, 40));
      assert.equal(answer.body.code, 'invalid_api_key');
    }
    assert.equal((await s.request('/data/api/getItem', { key: 'k1' }, bearer(real))).status, 200);
  });

  test('an expired key is refused; last use is written at most once a minute', async () => {
    const expires = new Date(now + 3600_000).toISOString();
    const made = await makeKey({ name: 'short', scopes: [{ kind: 'store', name: 'data', access: ['read'] }], expires });
    const lastUsed = async () =>
      (await s.request(`/api/keys/${made.key.id}`, undefined, { method: 'GET', token: await s.adminToken() })).body;
    assert.equal((await lastUsed()).lastUsed, null);
    assert.equal((await s.request('/data/api/getItem', { key: 'k1' }, bearer(made.token))).status, 200);
    const first = (await lastUsed()).lastUsed;
    assert.equal(first, new Date(now).toISOString());
    now += 30_000;
    await s.request('/data/api/getItem', { key: 'k1' }, bearer(made.token));
    assert.equal((await lastUsed()).lastUsed, first, 'not written again within the minute');
    now += 31_000;
    await s.request('/data/api/getItem', { key: 'k1' }, bearer(made.token));
    assert.equal((await lastUsed()).lastUsed, new Date(now).toISOString());
    now += 3600_000;
    const late = await s.request('/data/api/getItem', { key: 'k1' }, bearer(made.token));
    assert.equal(late.status, 401);
    assert.equal(late.body.code, 'invalid_api_key');
    assert.match(late.body.message, /expired/);
    assert.equal((await lastUsed()).state, 'expired');
  });

  test('revoked: refused at once, also while requests are running in parallel', async () => {
    const made = await makeKey({ name: 'busy', scopes: [{ kind: 'store', name: 'data', access: ['read', 'write'] }] });
    const calls = Array.from({ length: 40 }, (_, i) =>
      s.request('/data/api/setItem', { key: `p${i}`, value: String(i) }, bearer(made.token)),
    );
    const answers = await Promise.all(calls);
    assert.deepEqual(
      answers.map((a) => a.status),
      answers.map(() => 200),
    );
    const revoked = await s.request(`/api/keys/${made.key.id}`, undefined, {
      method: 'DELETE',
      token: await s.adminToken(),
    });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.state, 'revoked');
    const after = await s.request('/data/api/getItem', { key: 'p1' }, bearer(made.token));
    assert.equal(after.status, 401);
    assert.match(after.body.message, /revoked/);
    const unknown = await s.request('/api/keys/nosuchkey', undefined, {
      method: 'DELETE',
      token: await s.adminToken(),
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'unknown_key');
  });
});
