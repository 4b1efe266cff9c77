import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, CROSS_SITE, csrfOf, getPage, postForm } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';

/**
 * Issue 42, item 6 over HTTP (the chromium suite, impersonation.browser.test.ts, clicks through
 * it): only an administrator starts an impersonation; it is a session of the account labelled
 * as one, that ends after an hour however busy; End is refused cross-site and to a session that
 * is no impersonation.
 */
describe('impersonation over HTTP', () => {
  let now = Date.parse('2026-12-02T12:00:00Z');
  const s = useServer({}, { clock: { now: () => now } });

  const start = async (cookie: string, id: string) => {
    const url = `/admin/users/${id}/impersonate`;
    const page = await getPage(s, url, cookie);
    assert.equal(page.status, 200);
    const posted = await postForm(
      s,
      url,
      { confirm: id, impersonate$: 'impersonate$', csrf: csrfOf(page.html) },
      { cookie, headers: { origin: s.url } },
    );
    assert.equal(posted.status, 303, posted.html);
    const cookies = posted.headers.getSetCookie();
    const auth = cookies.find((c) => c.startsWith('auth='))?.split(';')[0] ?? '';
    const kept = cookies.find((c) => c.startsWith('auth_admin='))?.split(';')[0] ?? '';
    return { auth, kept, token: auth.slice('auth='.length) };
  };

  test('a session of the account, labelled, ended after an hour however busy', async () => {
    await s.adminToken();
    await s.createUser('dana');
    const dana = (await s.users('getUser', { identity: 'dana' }, { token: await s.adminToken() })).body.id;
    const admin = await authCookie(s, 'admin');
    const { auth, kept, token } = await start(admin, dana);
    assert.match(kept, /^auth_admin=/, "the administrator's session is kept aside");
    assert.equal(kept.slice('auth_admin='.length), admin.slice('auth='.length));
    const sessions = await s.users('sessions', {}, { token });
    const mine = sessions.body.sessions.find((x: { current: boolean }) => x.current);
    assert.equal(mine?.method, 'impersonation');
    for (let minute = 10; minute <= 50; minute += 10) {
      now += 10 * 60_000;
      assert.equal((await s.users('identity', {}, { token })).body.name, 'dana', `minute ${minute}`);
    }
    now += 11 * 60_000;
    assert.equal((await s.users('identity', {}, { token })).status, 401, 'over after an hour, never extended');
    assert.ok(auth);
  });

  test('only an administrator starts one; End is refused cross-site and without an impersonation', async () => {
    await s.createUser('erin');
    await s.createUser('finn');
    const erin = (await s.users('getUser', { identity: 'erin' }, { token: await s.adminToken() })).body.id;
    const finn = await authCookie(s, 'finn');
    assert.equal((await getPage(s, `/admin/users/${erin}/impersonate`, finn)).status, 403);

    const account = await getPage(s, '/users/account', finn);
    const end = (headers: Record<string, string>) =>
      postForm(
        s,
        '/users/impersonation/end',
        { csrf: csrfOf(account.html) },
        { cookie: finn, headers, urlencoded: true },
      );
    assert.equal((await end({ origin: s.url })).status, 403, 'not an impersonation');
    const { auth } = await start(await authCookie(s, 'admin'), erin);
    const acting = await getPage(s, '/users/account', auth);
    assert.match(acting.html, /You are acting as <strong>erin<\/strong>/);
    const crossSite = await postForm(
      s,
      '/users/impersonation/end',
      { csrf: csrfOf(acting.html) },
      { cookie: auth, headers: { ...CROSS_SITE }, urlencoded: true },
    );
    assert.equal(crossSite.status, 403, 'cross-site');
    assert.match((await getPage(s, '/users/account', auth)).html, /You are acting as/, 'still on');
  });
});
