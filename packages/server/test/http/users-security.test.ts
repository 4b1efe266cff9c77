import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addAccount, startServer, useServer, PASSWORD, type TestServer } from '../helpers/test-server.js';

const addUser = (s: TestServer, name: string) => addAccount(s.roost, name);

function authCookie(headers: Headers): string {
  const line = headers.getSetCookie().find((c) => c.startsWith('auth='));
  if (!line) throw new Error('no auth cookie');
  return (line.split(';')[0] ?? '').slice('auth='.length);
}

describe('users: rate limits', () => {
  const s = useServer({ rateLimit: { max: 3, windowSeconds: 60 } });
  before(async () => {
    await addUser(s, 'limited');
  });

  // token and signin are throttled by failures instead (signin-throttle.test.ts).
  const cases: Array<[op: string, body: Record<string, unknown>]> = [
    ['resetPassword', { identity: 'limited' }],
    ['signupDirect', { name: 'newbie', email: 'newbie@example.com', password: PASSWORD }],
  ];
  for (const [op, body] of cases) {
    test(`the 4th ${op} call in the window gets 429 with the JSON failure body`, async () => {
      for (let i = 1; i <= 3; i++) {
        const res = await s.users(op, body);
        assert.notEqual(res.status, 429, `call ${i}`);
      }
      const res = await s.users(op, body);
      assert.equal(res.status, 429);
      assert.equal(res.body.result, false);
      assert.equal(res.body.code, 'rate_limited');
      assert.equal(typeof res.body.message, 'string');
      assert.deepEqual(res.body.messages, [res.body.message]);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.ok(Number(res.headers.get('retry-after')) > 0, 'retry-after');
    });
  }

  test('a limited operation stays limited over GET', async () => {
    const res = await s.request('/users/api/resetPassword?identity=limited');
    assert.equal(res.status, 429);
    assert.equal(res.body.code, 'rate_limited');
  });

  test('unguarded operations are not limited', async () => {
    for (let i = 0; i < 6; i++) assert.equal((await s.request('/users/api/ping')).status, 200);
    for (let i = 0; i < 6; i++) assert.equal((await s.users('allowed', { permission: 'ping' })).status, 200);
  });
});

describe('users: rate limit counter is shared by GET and POST of one operation', () => {
  test('POST, GET, POST, then 429', async () => {
    const s = await startServer({ rateLimit: { max: 3, windowSeconds: 60 } });
    try {
      assert.equal((await s.users('resetPassword', { identity: 'x' })).status, 200);
      assert.equal((await s.request('/users/api/resetPassword?identity=x')).status, 200);
      assert.equal((await s.users('resetPassword', { identity: 'x' })).status, 200);
      assert.equal((await s.request('/users/api/resetPassword?identity=x')).status, 429);
      // Another limited operation has a counter of its own.
      assert.equal((await s.users('token', { identity: 'x', password: 'y' })).status, 401);
    } finally {
      await s.close();
    }
  });
});

describe('users: account lockout', () => {
  let t = Date.UTC(2026, 2, 1);
  const s = useServer({ users: { lockoutThreshold: 3, lockoutSeconds: 60 } }, { clock: { now: () => t } });
  before(async () => {
    await addUser(s, 'locky');
    await addUser(s, 'resetter');
  });

  const signin = (password: string, op = 'token') => s.users(op, { identity: 'locky', password });

  test('failures below the threshold, then a success, reset the count', async () => {
    assert.equal((await signin('wrong-1')).status, 401);
    assert.equal((await signin('wrong-2')).status, 401);
    assert.equal((await signin(PASSWORD)).status, 200);
    assert.equal((await signin('wrong-3')).status, 401);
    assert.equal((await signin('wrong-4')).status, 401);
    assert.equal((await signin(PASSWORD)).status, 200, 'not locked: the success reset the count');
  });

  test('the threshold locks the account: even the right password is refused, with the same 401', async () => {
    const wrong = await signin('wrong-a');
    await signin('wrong-b', 'signin');
    await signin('wrong-c');
    const locked = await signin(PASSWORD);
    assert.equal(locked.status, 401);
    assert.deepEqual(locked.body, wrong.body, 'a locked account answers like a wrong password');
    assert.equal(locked.body.token, undefined);
    const viaSignin = await signin(PASSWORD, 'signin');
    assert.equal(viaSignin.status, 401);
    assert.equal(viaSignin.headers.getSetCookie().length, 0);
    t += 30_000;
    assert.equal((await signin(PASSWORD)).status, 401, 'still locked after 30 s');
  });

  test('after lockoutSeconds the right password works again', async () => {
    t += 31_000;
    const res = await signin(PASSWORD);
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.token, 'string');
  });

  test('other accounts are not locked by it', async () => {
    for (let i = 0; i < 3; i++) await s.users('token', { identity: 'locky', password: 'nope-nope' });
    assert.equal((await signin(PASSWORD)).status, 401);
    assert.equal((await s.users('token', { identity: 'resetter', password: PASSWORD })).status, 200);
    t += 61_000;
  });

  test('a password reset lifts a lock', async () => {
    for (let i = 0; i < 3; i++) await s.users('token', { identity: 'resetter', password: 'nope-nope' });
    assert.equal((await s.users('token', { identity: 'resetter', password: PASSWORD })).status, 401);
    assert.deepEqual((await s.users('resetPassword', { identity: 'resetter' })).body, { result: true });
    const mail = await s.lastMail('resetter@example.com');
    const token = /[?&]token=([^\s&"<]+)/.exec(mail.text)?.[1];
    assert.ok(token);
    const reset = await s.users('resetPassword2', { token: decodeURIComponent(token), newpassword: 'after-the-reset' });
    assert.deepEqual(reset.body, { result: true });
    assert.equal((await s.users('token', { identity: 'resetter', password: 'after-the-reset' })).status, 200);
  });
});

describe('users: CSRF and CORS', () => {
  const APP = 'https://app.example.com';
  let cookie: string;
  let token: string;
  const s = useServer({ corsOrigins: [APP] });
  before(async () => {
    await addUser(s, 'csrf');
    const signin = await s.users('signin', { identity: 'csrf', password: PASSWORD });
    cookie = `auth=${authCookie(signin.headers)}`;
    token = (await s.users('token', { identity: 'csrf', password: PASSWORD })).body.token;
  });

  const realname = async () => (await s.users('profile', {}, { token })).body.realname as string;

  test('a cookie-authenticated write with Sec-Fetch-Site: cross-site is refused 403', async () => {
    const res = await s.users('update', { realname: 'cross' }, { headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    assert.equal(res.status, 403);
    assert.equal(res.body.result, false);
    assert.equal(res.body.code, 'cross_site_request');
    assert.notEqual(await realname(), 'cross');
    const sameSite = await s.users(
      'update',
      { realname: 'same-site' },
      { headers: { cookie, 'sec-fetch-site': 'same-site' } },
    );
    assert.equal(sameSite.status, 403, 'another site of the same registrable domain is still another origin');
  });

  test('a cookie-authenticated write with a foreign Origin is refused 403', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example', 'not a url']) {
      const res = await s.users('update', { realname: 'foreign' }, { headers: { cookie, origin } });
      assert.equal(res.status, 403, origin);
      assert.equal(res.body.code, 'cross_site_request');
    }
    const signout = await s.users('signout', {}, { headers: { cookie, origin: 'https://evil.example' } });
    assert.equal(signout.status, 403);
    const disable = await s.request('/users/api/disable', undefined, {
      method: 'DELETE',
      headers: { cookie, 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(disable.status, 403);
    assert.equal((await s.users('profile', {}, { token })).body.active, true);
    assert.notEqual(await realname(), 'foreign');
  });

  test('a cross-site signin is refused (login CSRF)', async () => {
    const res = await s.users(
      'signin',
      { identity: 'csrf', password: PASSWORD },
      { headers: { origin: 'https://evil.example' } },
    );
    assert.equal(res.status, 403);
    assert.equal(res.headers.getSetCookie().length, 0);
  });

  test('same-origin cookie writes pass', async () => {
    const bySite = await s.users(
      'update',
      { realname: 'same-origin' },
      { headers: { cookie, 'sec-fetch-site': 'same-origin' } },
    );
    assert.deepEqual(bySite.body, { result: true });
    assert.equal(await realname(), 'same-origin');
    const byOrigin = await s.users('update', { realname: 'own-origin' }, { headers: { cookie, origin: s.url } });
    assert.deepEqual(byOrigin.body, { result: true });
    assert.equal(await realname(), 'own-origin');
  });

  test('header-token requests pass whatever the origin', async () => {
    const res = await s.users(
      'update',
      { realname: 'by-token' },
      { token, headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } },
    );
    assert.deepEqual(res.body, { result: true });
    const bearer = await s.users(
      'update',
      { realname: 'by-bearer' },
      { headers: { authorization: `Bearer ${token}`, origin: 'https://evil.example' } },
    );
    assert.deepEqual(bearer.body, { result: true });
    assert.equal(await realname(), 'by-bearer');
  });

  test('a configured CORS origin passes with the cookie', async () => {
    const res = await s.users(
      'update',
      { realname: 'from-app' },
      { headers: { cookie, origin: APP, 'sec-fetch-site': 'cross-site' } },
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { result: true });
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.equal(await realname(), 'from-app');
  });

  test('CORS headers only for configured origins', async () => {
    const foreign = await s.request('/users/api/ping', undefined, { headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.status, 200);
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
    assert.equal(foreign.headers.get('access-control-allow-credentials'), null);
    const none = await s.request('/users/api/ping');
    assert.equal(none.headers.get('access-control-allow-origin'), null);
  });

  test('preflight from a configured origin: 204 with allow headers incl. x-auth-token', async () => {
    const res = await fetch(`${s.url}/users/api/update`, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-auth-token',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    const allowHeaders = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const h of ['x-auth-token', 'content-type', 'authorization']) assert.ok(allowHeaders.includes(h), h);
    const methods = res.headers.get('access-control-allow-methods') ?? '';
    for (const m of ['GET', 'POST', 'DELETE']) assert.ok(methods.includes(m), m);
    assert.equal(res.headers.get('access-control-max-age'), '3600');
  });

  test('preflight from a foreign origin gets no allow headers', async () => {
    const res = await fetch(`${s.url}/users/api/update`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-auth-token',
      },
    });
    await res.arrayBuffer();
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(res.headers.get('access-control-allow-headers'), null);
  });
});

describe('users: CORS off by default', () => {
  test('no CORS headers, and a preflight is not granted', async () => {
    const s = await startServer();
    try {
      const res = await s.request('/users/api/ping', undefined, { headers: { origin: 'https://app.example.com' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
      const pre = await fetch(`${s.url}/users/api/ping`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      await pre.arrayBuffer();
      assert.equal(pre.headers.get('access-control-allow-origin'), null);
      assert.equal(pre.headers.get('access-control-allow-headers'), null);
    } finally {
      await s.close();
    }
  });
});

describe('users: a disabled user', () => {
  const s = useServer();

  async function expectRefusedEverywhere(token: string, cookie: string) {
    for (const op of [
      'identity',
      'name',
      'profile',
      'update',
      'updatePassword',
      'verifyEmail',
      'message',
      'disable',
      'delete',
      'list',
      'getUser',
      'setPermissions',
    ]) {
      const res = await s.users(
        op,
        {
          realname: 'x',
          password: PASSWORD,
          newpassword: 'another-password',
          email: 'x@example.com',
          message: 'hi',
          identity: 'x',
        },
        { token },
      );
      assert.equal(res.status, 401, `${op} with the old token`);
      assert.equal(res.body.result, false);
    }
    assert.equal(
      (await s.request('/users/api/profile', undefined, { headers: { authorization: `Bearer ${token}` } })).status,
      401,
    );
    assert.equal((await s.request('/users/api/profile', undefined, { headers: { cookie } })).status, 401);
    assert.deepEqual((await s.users('authenticated', {}, { token })).body, { result: false });
    assert.deepEqual((await s.users('allowed', { permission: 'profile' }, { token })).body, {
      result: false,
      profile: false,
    });
  }

  test('disabled by an administrator: the old token and cookie are refused everywhere', async () => {
    const token = await s.createUser('goner', { groups: ['admins'] });
    const cookie = `auth=${authCookie((await s.users('signin', { identity: 'goner', password: PASSWORD })).headers)}`;
    assert.equal((await s.users('list', {}, { token })).status, 200);
    const admin = await s.adminToken();
    assert.deepEqual(
      (await s.users('setUser', { identity: 'goner', values: { active: false } }, { token: admin })).body,
      { result: true },
    );
    await expectRefusedEverywhere(token, cookie);
    assert.equal((await s.users('token', { identity: 'goner', password: PASSWORD })).status, 401);
    const u = (await s.users('getUser', { identity: 'goner' }, { token: admin })).body;
    assert.equal(u.active, false);
    assert.equal(u.realname, '', 'nothing was changed by the refused calls');
  });

  test('disabled by themselves: the same', async () => {
    const token = await s.createUser('quitter');
    const cookie = `auth=${authCookie((await s.users('signin', { identity: 'quitter', password: PASSWORD })).headers)}`;
    assert.deepEqual((await s.users('disable', {}, { token })).body, { result: true });
    await expectRefusedEverywhere(token, cookie);
  });

  test('a disabled user cannot reset the password into the account', async () => {
    await s.createUser('sleeper');
    const admin = await s.adminToken();
    await s.users('setUser', { identity: 'sleeper', values: { active: false } }, { token: admin });
    assert.deepEqual((await s.users('resetPassword', { identity: 'sleeper' })).body, { result: true });
    const mails = (await s.outbox()).filter((m) => m.to === 'sleeper@example.com');
    assert.equal(mails.length, 0);
  });
});
