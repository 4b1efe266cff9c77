import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, useServer, PASSWORD } from '../helpers/test-server.js';
import { programCaller } from '../../src/users/index.js';

/** The `auth` cookie of a response (its value and its attributes), or null. */
function authCookie(headers: Headers): { value: string; attributes: string } | null {
  const line = headers.getSetCookie().find((c) => c.startsWith('auth='));
  if (!line) return null;
  const [pair = '', ...rest] = line.split(';');
  return { value: decodeURIComponent(pair.slice('auth='.length)), attributes: rest.join(';') };
}

const form = (fields: Record<string, string>) => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe('users: account operations', () => {
  const s = useServer();

  describe('token', () => {
    test('issues a token that works as x-auth-token and as Authorization: Bearer', async () => {
      await s.createUser('tok1');
      const res = await s.users('token', { identity: 'tok1', password: PASSWORD });
      assert.equal(res.status, 200);
      assert.equal(res.body.result, true);
      assert.equal(typeof res.body.token, 'string');
      assert.ok(res.body.token.length >= 20);
      const viaHeader = await s.request('/users/api/identity', undefined, { token: res.body.token });
      assert.equal(viaHeader.status, 200);
      assert.equal(viaHeader.body.name, 'tok1');
      const viaBearer = await s.request('/users/api/identity', undefined, {
        headers: { authorization: `Bearer ${res.body.token}` },
      });
      assert.equal(viaBearer.status, 200);
      assert.equal(viaBearer.body.name, 'tok1');
    });

    test('the token is also issued for the email as identity (policy either)', async () => {
      await s.createUser('tok2', { email: 'tok2@example.org' });
      const res = await s.users('token', { identity: 'tok2@example.org', password: PASSWORD });
      assert.equal(res.status, 200);
      const who = await s.request('/users/api/name', undefined, { token: res.body.token });
      assert.equal(who.body.name, 'tok2');
    });

    test('wrong password and unknown identity answer the same 401', async () => {
      await s.createUser('tok3');
      const wrong = await s.users('token', { identity: 'tok3', password: 'not-the-password' });
      const unknown = await s.users('token', { identity: 'nobody-here', password: 'not-the-password' });
      assert.equal(wrong.status, 401);
      assert.equal(unknown.status, 401);
      assert.deepEqual(wrong.body, unknown.body);
      assert.equal(wrong.body.result, false);
      assert.equal(wrong.body.code, 'invalid_credentials');
      assert.equal(wrong.body.token, undefined);
    });

    test('missing fields answer 200 result:false with required pairs', async () => {
      const res = await s.users('token', {});
      assert.equal(res.status, 200);
      assert.equal(res.body.result, false);
      assert.deepEqual(res.body.invalid, [
        ['identity', 'required'],
        ['password', 'required'],
      ]);
      assert.deepEqual(res.body.messages.slice(1), res.body.invalid);
      assert.equal(typeof res.body.message, 'string');
    });

    test('a made-up token is not a caller', async () => {
      const res = await s.request('/users/api/profile', undefined, { token: 'made-up-token' });
      assert.equal(res.status, 401);
      assert.equal(res.body.result, false);
      const bearer = await s.request('/users/api/profile', undefined, { headers: { authorization: 'Bearer made-up' } });
      assert.equal(bearer.status, 401);
    });
  });

  describe('signin and signout', () => {
    test('signin sets the HttpOnly SameSite=Lax cookie auth, which authenticates GET profile', async () => {
      await s.createUser('cook1');
      const res = await s.users('signin', { identity: 'cook1', password: PASSWORD });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { result: true });
      const cookie = authCookie(res.headers);
      assert.ok(cookie, 'no auth cookie');
      assert.ok(cookie.value.length >= 20);
      assert.match(cookie.attributes, /HttpOnly/i);
      assert.match(cookie.attributes, /SameSite=Lax/i);
      assert.match(cookie.attributes, /Path=\//i);
      const profile = await s.request('/users/api/profile', undefined, { headers: { cookie: `auth=${cookie.value}` } });
      assert.equal(profile.status, 200);
      assert.equal(profile.body.name, 'cook1');
    });

    test('signin with a wrong password sets no cookie', async () => {
      await s.createUser('cook2');
      const res = await s.users('signin', { identity: 'cook2', password: 'wrong-password' });
      assert.equal(res.status, 401);
      assert.equal(res.body.result, false);
      assert.equal(authCookie(res.headers), null);
    });

    test('signout revokes the token and clears the cookie', async () => {
      await s.createUser('cook3');
      const signin = await s.users('signin', { identity: 'cook3', password: PASSWORD });
      const cookie = authCookie(signin.headers);
      assert.ok(cookie);
      const headers = { cookie: `auth=${cookie.value}` };
      const out = await s.users('signout', {}, { headers });
      assert.equal(out.status, 200);
      assert.equal(out.body.result, true);
      const cleared = authCookie(out.headers);
      assert.ok(cleared, 'signout sets no cookie');
      assert.equal(cleared.value, '');
      assert.match(cleared.attributes, /Expires=Thu, 01 Jan 1970|Max-Age=0/i);
      const after = await s.request('/users/api/profile', undefined, { headers });
      assert.equal(after.status, 401);
    });

    test('signout with a header token revokes that token only', async () => {
      const t1 = await s.createUser('out1');
      const t2 = (await s.users('token', { identity: 'out1', password: PASSWORD })).body.token as string;
      const res = await s.users('signout', {}, { token: t1 });
      assert.deepEqual(res.body, { result: true });
      assert.equal((await s.request('/users/api/identity', undefined, { token: t1 })).status, 401);
      assert.equal((await s.request('/users/api/identity', undefined, { token: t2 })).status, 200);
    });

    test('signout without a token answers result true and changes nothing', async () => {
      const res = await s.users('signout', undefined, {
        raw: '',
        headers: { 'content-type': 'application/json;charset=utf-8' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.result, true);
    });
  });

  describe('identity, name, profile', () => {
    let token: string;
    before(async () => {
      token = await s.createUser('prof1', { email: 'prof1@example.com' });
      await s.users('update', { realname: 'Pro File', data: 'some data', notify: true }, { token });
    });

    test('identity has name, realname, email, id and reference (= id)', async () => {
      const res = await s.request('/users/api/identity', undefined, { token });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'prof1');
      assert.equal(res.body.realname, 'Pro File');
      assert.equal(res.body.email, 'prof1@example.com');
      assert.equal(typeof res.body.id, 'string');
      assert.ok(res.body.id.length > 0);
      assert.equal(res.body.reference, res.body.id);
      assert.equal(res.body.password, undefined);
      assert.equal(res.body.passwordHash, undefined);
    });

    test('name answers name and realname under policy either', async () => {
      const res = await s.users('name', {}, { token });
      assert.deepEqual(res.body, { name: 'prof1', realname: 'Pro File' });
    });

    test('profile has every field of the seed', async () => {
      const res = await s.users('profile', {}, { token });
      assert.equal(res.status, 200);
      const p = res.body;
      assert.equal(p.name, 'prof1');
      assert.equal(p.email, 'prof1@example.com');
      assert.equal(p.realname, 'Pro File');
      assert.equal(p.data, 'some data');
      assert.match(p.activity, /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d$/);
      assert.equal(p.notify, true);
      assert.equal(typeof p.id, 'string');
      assert.equal(p.active, true);
      assert.deepEqual(p.groups, []);
      for (const secret of ['password', 'passwordHash', 'password_hash', 'failedSignins', 'lockedUntil'])
        assert.equal(p[secret], undefined, secret);
    });

    test('identity, name, profile without a token answer 401 with a JSON body', async () => {
      for (const op of ['identity', 'name', 'profile']) {
        for (const method of ['GET', 'POST'] as const) {
          const res = method === 'GET' ? await s.request(`/users/api/${op}`) : await s.users(op, {});
          assert.equal(res.status, 401, `${method} ${op}`);
          assert.equal(res.body.result, false);
          assert.equal(res.body.code, 'not_signed_in');
        }
      }
    });
  });

  describe('authenticated', () => {
    let plain: string;
    let editor: string;
    before(async () => {
      plain = await s.createUser('auth1');
      editor = await s.createUser('auth2', { groups: ['editors', 'writers'] });
    });

    test('no groups: true when signed in, false when not', async () => {
      assert.deepEqual((await s.users('authenticated', {}, { token: plain })).body, { result: true });
      assert.deepEqual((await s.users('authenticated', {})).body, { result: false });
      assert.deepEqual((await s.request('/users/api/authenticated')).body, { result: false });
    });

    test('groups as a string or a list: member of at least one', async () => {
      assert.equal((await s.users('authenticated', { groups: 'editors' }, { token: editor })).body.result, true);
      assert.equal(
        (await s.users('authenticated', { groups: ['nope', 'writers'] }, { token: editor })).body.result,
        true,
      );
      assert.equal(
        (await s.users('authenticated', { groups: ['nope', 'other'] }, { token: editor })).body.result,
        false,
      );
      assert.equal((await s.users('authenticated', { groups: 'editors' }, { token: plain })).body.result, false);
      assert.equal((await s.users('authenticated', { groups: 'editors' })).body.result, false);
    });

    test('groups in the query of a GET', async () => {
      assert.equal(
        (await s.request('/users/api/authenticated?groups=editors', undefined, { token: editor })).body.result,
        true,
      );
      assert.equal(
        (await s.request('/users/api/authenticated?groups=admins', undefined, { token: editor })).body.result,
        false,
      );
    });
  });

  describe('allowed', () => {
    let token: string;
    before(async () => {
      token = await s.createUser('allow1');
    });

    test('permission as a string', async () => {
      const res = await s.users('allowed', { permission: 'profile' }, { token });
      assert.deepEqual(res.body, { result: true, profile: true });
      const anon = await s.users('allowed', { permission: 'profile' });
      assert.deepEqual(anon.body, { result: false, profile: false });
    });

    test('permissions as a list: result false when any is false', async () => {
      const res = await s.users('allowed', { permissions: ['profile', 'update', 'setUser'] }, { token });
      assert.deepEqual(res.body, { result: false, profile: true, update: true, setUser: false });
      const all = await s.users('allowed', { permission: ['profile', 'update'] }, { token });
      assert.deepEqual(all.body, { result: true, profile: true, update: true });
    });

    test('permissions as a string and over GET', async () => {
      assert.deepEqual((await s.users('allowed', { permissions: 'signupDirect' })).body, {
        result: false,
        signupDirect: false,
      });
      const get = await s.request('/users/api/allowed?permission=ping', undefined, { token });
      assert.deepEqual(get.body, { result: true, ping: true });
    });

    test('no permission named: required', async () => {
      const res = await s.users('allowed', {}, { token });
      assert.equal(res.status, 200);
      assert.equal(res.body.result, false);
      assert.deepEqual(res.body.invalid, [['permission', 'required']]);
    });
  });

  describe('update', () => {
    let token: string;
    before(async () => {
      token = await s.createUser('upd1');
    });
    const profile = async () => (await s.users('profile', {}, { token })).body;

    test('realname and notify as a boolean', async () => {
      assert.deepEqual((await s.users('update', { realname: 'Up Date', notify: true }, { token })).body, {
        result: true,
      });
      let p = await profile();
      assert.equal(p.realname, 'Up Date');
      assert.equal(p.notify, true);
      await s.users('update', { notify: false }, { token });
      p = await profile();
      assert.equal(p.notify, false);
      assert.equal(p.realname, 'Up Date', 'fields not given stay');
    });

    test('notify as text', async () => {
      await s.users('update', { notify: 'true' }, { token });
      assert.equal((await profile()).notify, true);
      await s.users('update', { notify: 'false' }, { token });
      assert.equal((await profile()).notify, false);
      const bad = await s.users('update', { notify: 'maybe' }, { token });
      assert.equal(bad.body.result, false);
      assert.deepEqual(bad.body.invalid, [['notify', 'invalid']]);
    });

    test('data as an object or a JSON string', async () => {
      await s.users('update', { data: { theme: 'dark', n: 2 } }, { token });
      assert.deepEqual(JSON.parse((await profile()).data), { theme: 'dark', n: 2 });
      await s.users('update', { data: '{"a":[1,2]}' }, { token });
      assert.equal((await profile()).data, '{"a":[1,2]}');
    });

    test('data too long → [data, too long], nothing changed', async () => {
      await s.users('update', { data: 'kept' }, { token });
      const res = await s.users('update', { data: 'x'.repeat(10_001), realname: 'Not Taken' }, { token });
      assert.equal(res.status, 200);
      assert.equal(res.body.result, false);
      assert.deepEqual(res.body.invalid, [['data', 'too long']]);
      assert.deepEqual(res.body.messages.slice(1), [['data', 'too long']]);
      const p = await profile();
      assert.equal(p.data, 'kept');
      assert.notEqual(p.realname, 'Not Taken');
    });

    test('update does not change name, email, groups or state', async () => {
      const res = await s.users(
        'update',
        { name: 'other', email: 'x@example.com', groups: ['admins'], active: false },
        { token },
      );
      assert.equal(res.body.result, true);
      const p = await profile();
      assert.equal(p.name, 'upd1');
      assert.equal(p.email, 'upd1@example.com');
      assert.deepEqual(p.groups, []);
      assert.equal(p.active, true);
    });

    test('update without a token → 401', async () => {
      assert.equal((await s.users('update', { realname: 'x' })).status, 401);
    });
  });

  describe('updatePassword', () => {
    test('wrong current password → [password, invalid]', async () => {
      const token = await s.createUser('pw1');
      const res = await s.users(
        'updatePassword',
        { password: 'wrong-current', newpassword: 'another-good-one' },
        { token },
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.result, false);
      assert.deepEqual(res.body.invalid, [['password', 'invalid']]);
      assert.equal(
        (await s.users('token', { identity: 'pw1', password: PASSWORD })).status,
        200,
        'old password still works',
      );
    });

    test('too short new password → [newpassword, too short]', async () => {
      const token = await s.createUser('pw2');
      const res = await s.users('updatePassword', { password: PASSWORD, newpassword: 'short' }, { token });
      assert.equal(res.body.result, false);
      assert.deepEqual(res.body.invalid, [['newpassword', 'too short']]);
    });

    test('missing fields → required', async () => {
      const token = await s.createUser('pw3');
      const res = await s.users('updatePassword', {}, { token });
      assert.deepEqual(res.body.invalid, [
        ['password', 'required'],
        ['newpassword', 'required'],
      ]);
    });

    test('success: other sessions revoked, this one kept, new password works, old not', async () => {
      const mine = await s.createUser('pw4');
      const other = (await s.users('token', { identity: 'pw4', password: PASSWORD })).body.token as string;
      const res = await s.users(
        'updatePassword',
        { password: PASSWORD, newpassword: 'brand-new-password' },
        { token: mine },
      );
      assert.deepEqual(res.body, { result: true });
      assert.equal((await s.users('profile', {}, { token: mine })).status, 200);
      assert.equal((await s.users('profile', {}, { token: other })).status, 401);
      assert.equal((await s.users('token', { identity: 'pw4', password: PASSWORD })).status, 401);
      assert.equal((await s.users('token', { identity: 'pw4', password: 'brand-new-password' })).status, 200);
    });
  });

  describe('request forms: GET query, JSON, form bodies, nulls, empty bodies', () => {
    let token: string;
    before(async () => {
      token = await s.createUser('form1');
    });

    test('token with a form body', async () => {
      const res = await s.request('/users/api/token', undefined, {
        method: 'POST',
        ...form({ identity: 'form1', password: PASSWORD }),
      });
      assert.equal(res.status, 200);
      assert.equal(typeof res.body.token, 'string');
    });

    test('token over GET with a query', async () => {
      const res = await s.request(`/users/api/token?identity=form1&password=${PASSWORD}`);
      assert.equal(res.status, 200);
      assert.equal(typeof res.body.token, 'string');
    });

    test('update with a form body (notify as text)', async () => {
      const res = await s.request('/users/api/update', undefined, {
        method: 'POST',
        token,
        ...form({ realname: 'Form User', notify: 'true' }),
      });
      assert.deepEqual(res.body, { result: true });
      const p = (await s.request('/users/api/profile', undefined, { token })).body;
      assert.equal(p.realname, 'Form User');
      assert.equal(p.notify, true);
    });

    test('JSON with charset in the content type', async () => {
      const res = await s.users('update', undefined, {
        token,
        raw: JSON.stringify({ realname: 'Charset' }),
        headers: { 'content-type': 'application/json;charset=utf-8' },
      });
      assert.deepEqual(res.body, { result: true });
      assert.equal((await s.users('profile', {}, { token })).body.realname, 'Charset');
    });

    test('null fields count as absent', async () => {
      await s.users('update', { realname: 'Before Null', data: 'd' }, { token });
      const res = await s.users('update', { realname: null, data: null, notify: null }, { token });
      assert.deepEqual(res.body, { result: true });
      const p = (await s.users('profile', {}, { token })).body;
      assert.equal(p.realname, 'Before Null');
      assert.equal(p.data, 'd');
      const tok = await s.users('token', { identity: 'form1', password: null });
      assert.equal(tok.status, 200);
      assert.deepEqual(tok.body.invalid, [['password', 'required']]);
      const list = await s.users('allowed', { permission: 'ping', permissions: null });
      assert.deepEqual(list.body, { result: true, ping: true });
    });

    test('an empty body with a JSON content type is an empty object', async () => {
      const res = await s.users('profile', undefined, {
        token,
        raw: '',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'form1');
      const ping = await s.users('ping', undefined, {
        raw: '',
        headers: { 'content-type': 'application/json;charset=utf-8' },
      });
      assert.deepEqual(ping.body, { result: 1 });
    });

    test('GET with a JSON content type and no body (jQuery without args)', async () => {
      const res = await s.request('/users/api/ping', undefined, { headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { result: 1 });
    });

    test('ping answers GET and POST with result 1', async () => {
      assert.deepEqual((await s.request('/users/api/ping')).body, { result: 1 });
      assert.deepEqual((await s.users('ping', {})).body, { result: 1 });
    });
  });

  describe('disable and delete', () => {
    test('disable over DELETE: signed out, cannot sign in, name stays blocked', async () => {
      const token = await s.createUser('dis1');
      const res = await s.request('/users/api/disable', undefined, { method: 'DELETE', token });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { result: true });
      assert.equal((await s.users('profile', {}, { token })).status, 401);
      assert.equal((await s.users('token', { identity: 'dis1', password: PASSWORD })).status, 401);
      await s.grant('signupDirect', ['sys:everyone']);
      const again = await s.users('signupDirect', { name: 'dis1', email: 'dis1@example.com', password: PASSWORD });
      assert.equal(again.body.result, false);
      assert.deepEqual(again.body.invalid, [
        ['name', 'exists'],
        ['email', 'exists'],
      ]);
      await s.grant('signupDirect', ['sys:noone']);
    });

    test('disable over POST', async () => {
      const token = await s.createUser('dis2');
      assert.deepEqual((await s.users('disable', {}, { token })).body, { result: true });
      assert.equal((await s.users('identity', {}, { token })).status, 401);
    });

    test('delete over DELETE: removed, name and email free again', async () => {
      const token = await s.createUser('del1');
      const res = await s.request('/users/api/delete', undefined, { method: 'DELETE', token });
      assert.deepEqual(res.body, { result: true });
      assert.equal((await s.users('profile', {}, { token })).status, 401);
      const admin = await s.adminToken();
      assert.equal((await s.users('getUser', { identity: 'del1' }, { token: admin })).status, 404);
      await s.grant('signupDirect', ['sys:everyone']);
      const again = await s.users('signupDirect', { name: 'del1', email: 'del1@example.com', password: PASSWORD });
      assert.deepEqual(again.body, { result: true });
      await s.grant('signupDirect', ['sys:noone']);
    });

    test('delete over POST, and disable/delete need a signed-in caller', async () => {
      const token = await s.createUser('del2');
      assert.equal((await s.request('/users/api/delete', undefined, { method: 'DELETE' })).status, 401);
      assert.equal((await s.request('/users/api/disable', undefined, { method: 'DELETE' })).status, 401);
      assert.deepEqual((await s.users('delete', {}, { token })).body, { result: true });
      assert.equal((await s.users('token', { identity: 'del2', password: PASSWORD })).status, 401);
    });
  });
});

describe('users: identity policies', () => {
  async function withPolicy(policy: 'name' | 'email' | 'either') {
    const s = await startServer({ users: { identityPolicy: policy } });
    await s.roost.users.createUser(programCaller('test'), {
      name: 'polly',
      email: 'polly@example.com',
      password: PASSWORD,
      realname: 'Polly',
      data: '',
      notify: false,
      groups: [],
      state: 'active',
      pending: null,
    });
    return s;
  }

  test('name: the name signs in, the email does not', async () => {
    const s = await withPolicy('name');
    try {
      const byName = await s.users('token', { identity: 'polly', password: PASSWORD });
      assert.equal(byName.status, 200);
      assert.equal((await s.users('token', { identity: 'polly@example.com', password: PASSWORD })).status, 401);
      assert.deepEqual((await s.users('name', {}, { token: byName.body.token })).body, {
        name: 'polly',
        realname: 'Polly',
      });
    } finally {
      await s.close();
    }
  });

  test('email: the email signs in, the name does not; name answers the email', async () => {
    const s = await withPolicy('email');
    try {
      const byEmail = await s.users('token', { identity: 'polly@example.com', password: PASSWORD });
      assert.equal(byEmail.status, 200);
      assert.equal((await s.users('token', { identity: 'polly', password: PASSWORD })).status, 401);
      assert.equal((await s.users('signin', { identity: 'polly', password: PASSWORD })).status, 401);
      assert.deepEqual((await s.users('name', {}, { token: byEmail.body.token })).body, {
        name: 'polly@example.com',
        realname: 'Polly',
      });
    } finally {
      await s.close();
    }
  });

  test('either: both sign in', async () => {
    const s = await withPolicy('either');
    try {
      assert.equal((await s.users('token', { identity: 'polly', password: PASSWORD })).status, 200);
      assert.equal((await s.users('token', { identity: 'polly@example.com', password: PASSWORD })).status, 200);
      assert.equal((await s.users('token', { identity: 'POLLY@EXAMPLE.COM', password: PASSWORD })).status, 200);
    } finally {
      await s.close();
    }
  });
});
