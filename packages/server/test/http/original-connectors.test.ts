import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD, useServer } from '../helpers/test-server.js';

/**
 * The original jQuery, AngularJS and Python connectors must work unchanged. Their own tests
 * only ever talked to mocks, so these tests replay the exact requests they send (read off their
 * code, see shared/reference/original-services.md §1.2) and check what they read back.
 */
describe('the wire forms of the original connectors', () => {
  let token: string;
  const s = useServer();
  before(async () => {
    token = await s.createUser('carol');
  });

  const raw = (path: string, init: RequestInit) => fetch(s.url + path, init);

  test('Python: JSON posted with no Content-Type header at all (it names the header `contentType`)', async () => {
    const res = await raw('/users/api/token', {
      method: 'POST',
      headers: { contentType: 'application/json' },
      body: new Blob([JSON.stringify({ identity: 'carol', password: PASSWORD })]).stream(),
      duplex: 'half',
    } as RequestInit);
    const body = (await res.json()) as { token?: string };
    assert.equal(res.status, 200);
    assert.equal(typeof body.token, 'string');
    // ...and the token in `x-auth-token`, with `null` for unset options, reads the identity.
    const identity = await raw('/users/api/identity', {
      method: 'POST',
      headers: { 'x-auth-token': body.token ?? '' },
      body: new Blob([JSON.stringify({ groups: null })]).stream(),
      duplex: 'half',
    } as RequestInit);
    const who = (await identity.json()) as { name: string; reference: string; id: string };
    assert.equal(who.name, 'carol');
    assert.equal(who.reference, who.id);
  });

  test('Python: every answer is a JSON object (the client spreads it as keyword arguments)', async () => {
    const admin = await s.adminToken();
    for (const op of ['ping', 'identity', 'profile', 'allowed', 'getPermissions', 'list', 'identities']) {
      const res = await s.users(op, op === 'allowed' ? { permissions: ['profile'] } : {}, { token: admin });
      assert.equal(typeof res.body, 'object', op);
      assert.ok(res.body !== null && !Array.isArray(res.body), op);
    }
  });

  test('AngularJS: signout POSTs an empty body with `application/json;charset=utf-8`', async () => {
    const own = await s.createUser('dave');
    const res = await raw('/users/api/signout', {
      method: 'POST',
      headers: { 'content-type': 'application/json;charset=utf-8', 'x-auth-token': own },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { result: true });
    const after = await s.request('/users/api/identity', undefined, { token: own });
    assert.equal(after.status, 401);
  });

  test('AngularJS: identity, name and profile by GET', async () => {
    for (const op of ['identity', 'name', 'profile']) {
      const res = await s.request(`/users/api/${op}`, undefined, { token });
      assert.equal(res.status, 200, op);
      assert.equal(res.body.name, 'carol', op);
    }
  });

  test('jQuery: calls without values are GETs with a JSON content type and no body', async () => {
    const res = await raw('/users/api/list', {
      method: 'GET',
      headers: { 'content-type': 'application/json', 'x-auth-token': await s.adminToken() },
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { users: { name: string }[]; start: number; size: number };
    assert.ok(body.users.some((u) => u.name === 'carol'));
    assert.equal(body.start, 1);
    const ping = await raw('/users/api/ping', { method: 'GET', headers: { 'content-type': 'application/json' } });
    assert.deepEqual(await ping.json(), { result: 1 });
  });

  test('jQuery: identity, name and profile as POST `{}`; disable without values as GET', async () => {
    const own = await s.createUser('erin');
    const profile = await s.users('profile', {}, { token: own });
    assert.equal(profile.body.name, 'erin');
    const disable = await raw('/users/api/disable', {
      method: 'GET',
      headers: { 'content-type': 'application/json', 'x-auth-token': own },
    });
    assert.deepEqual(await disable.json(), { result: true });
    const again = await s.users('token', { identity: 'erin', password: PASSWORD });
    assert.equal(again.status, 401);
  });

  test('aliases the connectors send: `permissions` for `permission`, `group` in entries, `updateMail`', async () => {
    const allowed = await s.users('allowed', { permissions: 'profile' }, { token });
    assert.deepEqual(allowed.body, { result: true, profile: true });
    const set = await s.users(
      'setPermissions',
      { permissions: { permission: 'updateEmail', group: 'sys:authenticated' } },
      { token: await s.adminToken() },
    );
    assert.equal(set.body.result, true);
    const changed = await s.users('updateMail', { email: 'carol.new@example.com' }, { token });
    assert.equal(changed.body.result, true);
    assert.equal((await s.users('profile', {}, { token })).body.email, 'carol.new@example.com');
  });

  test("failures carry `message` (AngularJS shows it) and `invalid` pairs (the original's), on HTTP 200", async () => {
    const res = await s.users('updatePassword', { password: PASSWORD, newpassword: 'x' }, { token });
    assert.equal(res.status, 200);
    assert.equal(res.body.result, false);
    assert.equal(typeof res.body.message, 'string');
    assert.deepEqual(res.body.invalid, [['newpassword', 'too short']]);
  });
});

describe('headers on every answer', () => {
  const s = useServer();

  test('user service answers are not cached, sniffed or framed; failures too', async () => {
    for (const res of [await s.users('ping'), await s.users('profile'), await s.request('/nowhere')]) {
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    }
    assert.equal((await s.users('ping')).headers.get('cache-control'), 'no-store');
    assert.equal((await s.users('profile')).headers.get('cache-control'), 'no-store');
  });
});
