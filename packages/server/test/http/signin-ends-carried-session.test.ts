import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postForm } from '../helpers/pages.js';
import { PASSWORD, useServer } from '../helpers/test-server.js';

/**
 * A sign-in that sets the `auth` cookie ends the session the request's cookie carried (OWASP
 * ASVS 5.0, 7.2.4; `startCookieSession` in src/http/auth.ts), on both databases: the API's
 * `signin`, the sign-in page, whoever the carried session belonged to. Sign-ins that answer the
 * token (`token`) end nothing: a connector may hold several tokens on purpose.
 */
describe('a new cookie sign-in ends the session the cookie carried', () => {
  const s = useServer();

  /** The `auth` cookie a response set, as a Cookie header value. */
  const cookieOf = (headers: Headers) => {
    const cookie = headers.getSetCookie().find((c) => c.startsWith('auth='));
    if (!cookie) throw new Error('no auth cookie');
    return cookie.split(';')[0] ?? '';
  };
  const tokenOf = (cookie: string) => cookie.slice('auth='.length);
  /** Whether the token still signs in (checked by header: the cookie of the request is not used). */
  const alive = async (token: string) => (await s.users('identity', {}, { token })).status === 200;
  const signin = (identity: string, cookie?: string) =>
    s.request(
      '/users/api/signin',
      { identity, password: PASSWORD },
      { headers: { origin: s.url, ...(cookie ? { cookie } : {}) } },
    );

  test('signin twice with one cookie jar: the first session ends, the second works', async () => {
    await s.createUser('jar');
    const first = cookieOf((await signin('jar')).headers);
    const again = await signin('jar', first);
    assert.deepEqual(again.body, { result: true });
    const second = cookieOf(again.headers);
    assert.notEqual(second, first);
    assert.equal(await alive(tokenOf(first)), false);
    assert.equal(await alive(tokenOf(second)), true);
    // One session left of the two sign-ins (plus the one createUser made).
    const sessions = (await s.users('sessions', {}, { token: tokenOf(second) })).body.sessions as unknown[];
    assert.equal(sessions.length, 2);
  });

  test("another account's session in the cookie ends too; a wrong sign-in ends nothing", async () => {
    await s.createUser('kit');
    await s.createUser('lou');
    const kit = cookieOf((await signin('kit')).headers);
    const wrong = await s.request(
      '/users/api/signin',
      { identity: 'lou', password: 'not-the-password' },
      { headers: { origin: s.url, cookie: kit } },
    );
    assert.equal(wrong.body.code, 'invalid_credentials');
    assert.equal(await alive(tokenOf(kit)), true);
    const lou = cookieOf((await signin('lou', kit)).headers);
    assert.equal(await alive(tokenOf(kit)), false);
    assert.equal(await alive(tokenOf(lou)), true);
  });

  test('the sign-in page ends the session of the cookie it was posted with', async () => {
    await s.createUser('pam');
    const old = cookieOf((await signin('pam')).headers);
    const res = await postForm(
      s,
      '/users/signin',
      { identity: 'pam', password: PASSWORD, signin$: 'signin$' },
      { cookie: old, headers: { origin: s.url } },
    );
    assert.equal(res.status, 303);
    const fresh = cookieOf(res.headers);
    assert.equal(await alive(tokenOf(old)), false);
    assert.equal(await alive(tokenOf(fresh)), true);
  });

  test('token answers a token and ends nothing: neither the cookie the request carried nor its header', async () => {
    const held = await s.createUser('ned');
    const cookie = cookieOf((await signin('ned')).headers);
    const answer = await s.request(
      '/users/api/token',
      { identity: 'ned', password: PASSWORD },
      { token: held, headers: { origin: s.url, cookie } },
    );
    assert.equal(typeof answer.body.token, 'string');
    assert.equal(answer.headers.getSetCookie().length, 0);
    assert.equal(await alive(held), true);
    assert.equal(await alive(tokenOf(cookie)), true);
    assert.equal(await alive(answer.body.token as string), true);
  });
});
