import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenIdProvider, type TestOpenIdProvider } from '../helpers/oidc-provider.js';
import { CookieJar, startFakeGitHub, walk, type FakeGitHub } from '../helpers/provider-flow.js';
import { freePort, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';
import { authCookie, csrfOf, getPage } from '../helpers/pages.js';
import { defineExtension, refuse } from '../../src/roost.js';

/**
 * Provider sign-in over HTTP on both databases (users/provider-ops.ts), with the browser's part
 * played by test/helpers/provider-flow.ts against a real OpenID Connect provider and a GitHub
 * stand-in: an app's one-time grant, the GitHub preset, parallel first sign-ins of one provider
 * account, an expired flow, a callback from another browser, hostile input on every route and
 * operation. The pages and the sign-up policies in chromium: pages/providers.browser.test.ts.
 */
const APP = 'http://127.0.0.1:9/app/';

/** A sign-in hook (docs/hooks.md): the provider's step sees the address it vouches for. */
const providerGate = defineExtension((roost) => {
  roost.hooks.before('user.signin', ({ method, step, input }) => {
    if (method === 'provider' && step === 'finish' && input.identity === 'blocked@example.com')
      throw refuse({ status: 403, code: 'signin_blocked', message: 'This account may not sign in.' });
    return undefined;
  });
  // A sign-up's hook sees a provider's first sign-in too (policy `provider`).
  roost.hooks.before('user.signup', ({ policy, input }) => {
    if (policy === 'provider' && input.email?.endsWith('@spam.example'))
      throw refuse({ code: 'domain_refused', message: 'This domain may not sign up.', fields: { email: 'refused' } });
    return undefined;
  });
});

describe('sign-in providers over HTTP', () => {
  let s: TestServer;
  let op: TestOpenIdProvider;
  let gh: FakeGitHub;
  let now = Date.now();
  const clock = { now: () => now };

  /** A whole sign-in by `login` that began in the app: the grant the app gets, or where it ended. */
  async function appSignin(id: string, login: string): Promise<{ grant: string | null; end: URL; text: string }> {
    const jar = new CookieJar();
    const end = await walk(jar, `${s.url}/users/providers/${id}/start?redirect=${encodeURIComponent(APP)}`, login, [
      new URL(APP).origin,
    ]);
    return { grant: end.url.searchParams.get('roost_signin'), end: end.url, text: end.text };
  }

  const trade = async (grant: string) => (await s.users('signinProvider2', { grant })).body;

  before(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    op = await startOpenIdProvider([`${publicUrl}/users/providers/corp/callback`]);
    gh = await startFakeGitHub();
    s = await startServer(
      {
        port,
        publicUrl,
        users: {
          providers: [
            { id: 'corp', kind: 'oidc', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret },
            { id: 'gh', kind: 'github', issuer: gh.url, clientId: gh.clientId, clientSecret: gh.clientSecret },
          ],
          providerRedirects: [APP],
        },
      },
      { clock, extensions: [providerGate] },
    );
    await s.grant('signupDirect', ['sys:everyone']);
  });
  after(async () => {
    await s?.close();
    await op?.close();
    await gh?.close();
  });

  test('providers lists the enabled ones for everybody', async () => {
    const res = await s.users('providers', {});
    assert.deepEqual(res.body, {
      result: true,
      providers: [
        { id: 'corp', label: '127.0.0.1' },
        { id: 'gh', label: 'GitHub' },
      ],
    });
  });

  test('an app gets a grant, trades it once for a session; links listed and unlinked', async () => {
    const { grant } = await appSignin('corp', 'amy');
    assert.ok(grant);
    const session = await trade(grant);
    assert.equal(typeof session.token, 'string');
    assert.equal((await trade(grant)).code, 'invalid_token');
    const token = session.token as string;
    assert.equal((await s.users('identity', {}, { token })).body.name, 'amy');
    const links = await s.users('providerLinks', {}, { token });
    assert.deepEqual(
      (links.body.providers as { provider: string; email: string }[]).map((l) => [l.provider, l.email]),
      [['corp', 'amy@example.com']],
    );
    assert.deepEqual((await s.users('secondFactor', {}, { token })).body.providers, ['corp']);
    const sessions = (await s.users('sessions', {}, { token })).body.sessions as { method: string }[];
    assert.deepEqual(
      sessions.map((x) => x.method),
      ['provider'],
    );
    // Amy's account was made by the provider, with a random password: the session alone does not unlink.
    const alone = await s.users('unlinkProvider', { provider: 'corp' }, { token });
    assert.deepEqual(
      [alone.status, alone.body.code, alone.body.invalid],
      [200, 'validation_failure', [['password', 'required']]],
    );
    const wrong = await s.users('unlinkProvider', { provider: 'corp', password: PASSWORD }, { token });
    assert.deepEqual([wrong.body.code, wrong.body.invalid], ['validation_failure', [['password', 'invalid']]]);
    await s.users('setUser', { identity: 'amy', values: { password: PASSWORD } }, { token: await s.adminToken() });
    const signedIn = (await s.users('token', { identity: 'amy', password: PASSWORD })).body.token as string;
    const unlinked = await s.users('unlinkProvider', { provider: 'corp', password: PASSWORD }, { token: signedIn });
    assert.equal(unlinked.body.result, true);
    const again = await s.users('unlinkProvider', { provider: 'corp', password: PASSWORD }, { token: signedIn });
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 'not_linked');
    // Unlinked, the provider account is a stranger: its email is taken, so it is refused.
    const refused = await appSignin('corp', 'amy');
    assert.equal(refused.end.searchParams.get('roost_error'), 'email_taken');
  });

  test('the GitHub preset: the user API, its verified primary email; the next sign-in finds the account', async () => {
    gh.person = { id: 4242, login: 'octo', email: 'octo@example.com', verified: true };
    const first = await appSignin('gh', '');
    const token = (await trade(first.grant ?? '')).token as string;
    const identity = (await s.users('identity', {}, { token })).body;
    assert.equal(identity.name, 'octo');
    assert.equal(identity.email, 'octo@example.com');
    const second = await appSignin('gh', '');
    const token2 = (await trade(second.grant ?? '')).token as string;
    assert.equal((await s.users('identity', {}, { token: token2 })).body.id, identity.id);
    // Another GitHub account with the same login gets a name of its own.
    gh.person = { id: 4243, login: 'octo', email: 'octo2@example.com', verified: true };
    const other = await appSignin('gh', '');
    const name = (await s.users('identity', {}, { token: (await trade(other.grant ?? '')).token })).body.name;
    assert.match(name, /^octo-[a-z0-9]{4}$/);
  });

  test('parallel first sign-ins of one provider account make one account, never two', async () => {
    const ends = await Promise.all(Array.from({ length: 6 }, () => appSignin('corp', 'para')));
    const granted = ends.filter((e) => e.grant);
    assert.ok(granted.length >= 1, JSON.stringify(ends.map((e) => e.end.href)));
    for (const e of ends) if (!e.grant) assert.equal(e.end.searchParams.get('roost_error'), 'email_taken');
    const ids = new Set<string>();
    for (const e of granted) {
      const token = (await trade(e.grant ?? '')).token;
      ids.add((await s.users('identity', {}, { token })).body.id);
    }
    assert.equal(ids.size, 1);
    const admin = { token: await s.adminToken() };
    const found = await s.users('list', { search: 'para@example.com' }, admin);
    assert.equal(found.body.total, 1, JSON.stringify(found.body));
  });

  test('a flow older than ten minutes, and a callback in another browser, are refused', async () => {
    const jar = new CookieJar();
    const start = await fetch(`${s.url}/users/providers/corp/start?redirect=/users/account`, { redirect: 'manual' });
    jar.keep(new URL(s.url), start);
    now += 11 * 60_000;
    const late = await walk(jar, start.headers.get('location') ?? '', 'late');
    assert.equal(late.status, 422);
    assert.match(late.text, /took too long or was used already/);
    now = Date.now();
    // Another browser: the right callback address, but none of the first one's cookies.
    const first = new CookieJar();
    const begun = await fetch(`${s.url}/users/providers/corp/start?redirect=/users/account`, { redirect: 'manual' });
    first.keep(new URL(s.url), begun);
    const stranger = new CookieJar();
    const end = await walk(stranger, begun.headers.get('location') ?? '', 'victim');
    assert.equal(end.status, 422);
    const created = await s.roost.users.findUser('victim');
    assert.equal(created, null);
  });

  test("a sign-in that began on Roost's pages ends there signed in, its path sent in ASCII", async () => {
    const start = `${s.url}/users/providers/corp/start?redirect=${encodeURIComponent('/users/account?n=☃')}`;
    const end = await walk(new CookieJar(), start, 'uni');
    assert.equal(end.status, 200);
    assert.equal(end.url.pathname, '/users/account');
    assert.equal(end.url.searchParams.get('n'), '☃');
    assert.match(end.text, /Sign-in providers/);
  });

  test('sign-in and sign-up hooks refuse a provider account by its address: back at the app, no account', async () => {
    const refused = await appSignin('corp', 'blocked');
    assert.equal(refused.grant, null);
    assert.equal(refused.end.searchParams.get('roost_error'), 'signin_blocked');
    assert.equal(await s.roost.users.findUser('blocked'), null);
    op.accounts.set('spammer', { email: 'spammer@spam.example' });
    const spam = await appSignin('corp', 'spammer');
    assert.equal(spam.end.searchParams.get('roost_error'), 'domain_refused');
    assert.equal(await s.roost.users.findUser('spammer@spam.example'), null);
  });

  test('the provider must ask the person: a GET from any site does not end in a session by itself', async () => {
    const locationOf = async (id: string) => {
      const res = await fetch(`${s.url}/users/providers/${id}/start?redirect=/users/account`, { redirect: 'manual' });
      return new URL(res.headers.get('location') ?? '');
    };
    assert.equal((await locationOf('corp')).searchParams.get('prompt'), 'login');
    assert.equal((await locationOf('gh')).searchParams.get('prompt'), 'select_account');
    // A person signed in at the provider (the jar keeps its session and the consent given)...
    const jar = new CookieJar();
    const start = `${s.url}/users/providers/corp/start?redirect=/users/account`;
    assert.equal((await walk(jar, start, 'sleepy')).url.pathname, '/users/account');
    // ...then a page of another site sends the browser to the start: redirects alone, no form posted.
    let next = new URL(start);
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(next, { headers: { cookie: jar.header(next) }, redirect: 'manual' });
      jar.keep(next, res);
      const location = res.headers.get('location');
      const session = res.headers.getSetCookie().some((c) => /^auth=[^;]/.test(c));
      assert.equal(session, false, `a session set at ${next.href}`);
      if (!location) break;
      next = new URL(location, next);
    }
    assert.equal(next.origin, op.issuer, `the browser stays at the provider, which asks: ${next.href}`);
  });

  test("linking from the account page needs the password again: the session's cookie alone is refused", async () => {
    const token = await s.createUser('lina', { email: 'lina@example.com' });
    const cookie = await authCookie(s, 'lina');
    const csrf = csrfOf((await getPage(s, '/users/account', cookie)).html);
    const link = async (fields: Record<string, string>) => {
      const res = await fetch(`${s.url}/users/providers/corp/link`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, origin: s.url },
        body: new URLSearchParams({ csrf, ...fields }),
      });
      return { res, html: await res.text() };
    };
    const refused: Record<string, string>[] = [{}, { password: 'not-the-password' }, { code: '000000' }];
    for (const fields of refused) {
      const { res, html } = await link(fields);
      assert.equal(res.status, 422, JSON.stringify(fields));
      assert.match(html, /role="alert"/);
      // No flow started: no state cookie, nothing to finish at the provider.
      assert.equal(res.headers.getSetCookie().length, 0);
    }
    const { res, html } = await link({ password: PASSWORD });
    assert.equal(res.status, 200);
    const provider = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    if (!provider?.startsWith(op.issuer)) assert.fail(html);
    const jar = new CookieJar();
    jar.keep(new URL(`${s.url}/users/providers/corp/link`), res);
    await walk(jar, provider, 'lina-at-corp');
    const links = (await s.users('providerLinks', {}, { token })).body.providers as { provider: string }[];
    assert.deepEqual(
      links.map((l) => l.provider),
      ['corp'],
    );
  });

  test('hostile input: each route and operation answers the failure body, below 500', async () => {
    // The pages answer their failures as pages (admin/page-kit/page-errors.ts), with the status.
    const cases: [string, number][] = [
      ['/users/providers/corp/start?redirect=https%3A%2F%2Fevil.example%2F', 422],
      [`/users/providers/corp/start?redirect=${'%2Fx'.repeat(3000)}`, 422],
      ['/users/providers/corp/start?redirect=%0d%0aSet-Cookie:x', 422],
      [`/users/providers/${'x'.repeat(40)}/start`, 422],
      ['/users/providers/%00/start', 404],
      ['/users/providers/none/start', 404],
      ['/users/providers/corp/callback', 422],
      ['/users/providers/corp/callback?state=a&state=b&code=c', 422],
      ['/users/providers/corp/callback?error=access_denied&state=zz', 422],
      ['/users/providers/none/callback?state=x', 404],
    ];
    for (const [path, status] of cases) {
      const res = await fetch(s.url + path, { redirect: 'manual' });
      const text = await res.text();
      assert.ok(res.status < 500, `${path}: ${res.status}`);
      if (res.status !== status) assert.fail(`${path}: ${res.status} ${text.slice(0, 300)}`);
      assert.match(text, /role="alert"/, path);
    }
    for (const body of [{}, { grant: 5 }, { grant: ['a'] }, { grant: 'x'.repeat(10_000) }, { grant: null }]) {
      const res = await s.users('signinProvider2', body);
      assert.equal(res.body.result, false, JSON.stringify(body));
      assert.ok(typeof res.body.code === 'string');
    }
    const token = await s.createUser('hostile-links');
    for (const body of [{}, { provider: 7 }, { provider: 'x'.repeat(1000) }]) {
      const res = await s.users('unlinkProvider', body, { token });
      assert.equal(res.body.result, false, JSON.stringify(body));
    }
    assert.equal((await s.users('providerLinks', {})).status, 401);
    assert.equal((await s.users('unlinkProvider', { provider: 'corp' })).status, 401);
  });
});

describe('a provider that cannot be reached', () => {
  let s: TestServer;
  before(async () => {
    const closed = await freePort();
    s = await startServer({
      users: {
        providers: [{ id: 'gone', kind: 'oidc', issuer: `http://127.0.0.1:${closed}`, clientId: 'c' }],
        providerRedirects: [APP],
      },
    });
  });
  after(() => s?.close());

  test('begun in an app: back at the app with roost_error=provider_unavailable; begun on a page: 503', async () => {
    const app = `${APP}done?keep=1`;
    const res = await fetch(`${s.url}/users/providers/gone/start?redirect=${encodeURIComponent(app)}`, {
      redirect: 'manual',
    });
    assert.equal(res.status, 303, await res.text());
    const end = new URL(res.headers.get('location') ?? '');
    assert.equal(`${end.origin}${end.pathname}`, `${APP}done`);
    assert.equal(end.searchParams.get('keep'), '1');
    assert.equal(end.searchParams.get('roost_error'), 'provider_unavailable');
    // Not an allowed app address: refused as before, never sent on.
    const other = await fetch(`${s.url}/users/providers/gone/start?redirect=https%3A%2F%2Fevil.example%2F`, {
      redirect: 'manual',
    });
    assert.equal(other.status, 422);
    const local = await fetch(`${s.url}/users/providers/gone/start?redirect=/users/account`, { redirect: 'manual' });
    assert.equal(local.status, 503);
    assert.match(await local.text(), /could not be reached/);
  });
});
