import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { ConfigError, parseConfig } from '../../src/core/config.js';
import { CookieJar } from '../helpers/provider-flow.js';
import { authCookie, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { freePort, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';
import { receiver } from '../helpers/webhook-receiver.js';

/**
 * Roost as an OpenID Connect provider over HTTP on both databases (identity-provider/): a real
 * relying party (openid-client) runs the authorization code flow with PKCE against Roost, with a
 * browser's part played here (cookies kept, redirects followed by hand, the consent form posted
 * as a person would). Sign-in, consent remembered per account and client, token, userinfo and
 * the groups claim; the refusals (a wrong redirect_uri, no PKCE, a replayed code, a disabled or
 * removed account, a second factor the session did not pass, Roost's sign-out); JWT access
 * tokens verified with jose against the JWKS. The consent page in chromium:
 * pages/identity-provider.browser.test.ts.
 */
const APP = 'http://127.0.0.1:9';
const CALLBACK = `${APP}/callback`;
const SECRET = 'a-client-secret-of-the-team-wiki-0123456789';
const API = 'https://api.example.test';
/** `users.secretsKey`: the identity provider's keys are sealed with it in the database. */
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

let now = Date.now();
const clock = { now: () => now };

/** Where a browser's walk ended: the application's callback (not fetched), or a Roost page. */
interface Walked {
  url: URL;
  status: number;
  html: string;
}

/**
 * Follows redirects and the "continue" page's refresh (identity-provider/idp-routes.ts) from
 * `start`, posting the consent page's `answer` (allow, deny, or none: stop there), until the
 * application's origin or another page.
 */
async function walk(jar: CookieJar, start: string, answer: 'allow' | 'deny' | null = 'allow'): Promise<Walked> {
  let next = new URL(start);
  let init: RequestInit = {};
  for (let hop = 0; hop < 20; hop++) {
    if (next.origin === APP) return { url: next, status: 0, html: '' };
    const headers = new Headers(init.headers);
    const cookie = jar.header(next);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(next, { ...init, headers, redirect: 'manual' });
    jar.keep(next, res);
    init = {};
    const location = res.headers.get('location');
    if (location && res.status >= 300 && res.status < 400) {
      next = new URL(location, next);
      continue;
    }
    const html = await res.text();
    const refresh = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(html)?.[1];
    if (refresh) {
      next = new URL(refresh.replace(/&amp;/g, '&'), next);
      continue;
    }
    // The library's self-submitting form (the end of its session when another account signs in).
    const posted = /document\.forms\[0\]\.submit\(\)[\s\S]*<form method="post" action="([^"]+)">/.exec(html)?.[1];
    if (posted) {
      const fields = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)];
      const body = new URLSearchParams(fields.map((m) => [m[1] ?? '', m[2] ?? '']));
      next = new URL(posted, next);
      init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      continue;
    }
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (answer && csrf && html.includes('name="allow$"')) {
      const body = new URLSearchParams({ csrf, [`${answer}$`]: '1' });
      init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      continue;
    }
    return { url: next, status: res.status, html };
  }
  throw new Error(`too many redirects from ${start}`);
}

describe('Roost as an OpenID Connect provider over HTTP', () => {
  let s: TestServer;
  let issuer: string;
  let wiki: oidc.Configuration;
  let dashboard: oidc.Configuration;
  /** The SMS gateway (sms/http-sms-sender.ts posts each text to it): codes by SMS as a second factor. */
  let gateway: Awaited<ReturnType<typeof receiver>>;
  /** The code of the last text to `phone`. */
  const codeSentTo = async (phone: string) => {
    await s.roost.mailQueue.idle();
    const texts = gateway.received.map((r) => JSON.parse(r.body) as { to: string; text: string });
    return /(\d{6})/.exec(texts.filter((t) => t.to === phone).at(-1)?.text ?? '')?.[1] ?? '';
  };

  /** A browser signed in to Roost as `name` (the API's `signin`, which sets the cookie). */
  async function signedIn(name: string): Promise<CookieJar> {
    const jar = new CookieJar();
    const url = new URL(`${s.url}/users/api/signin`);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: name, password: PASSWORD }),
    });
    assert.equal(res.status, 200, await res.text());
    jar.keep(url, res);
    return jar;
  }

  /** The start of an authorization: its URL at Roost and what the application keeps to finish it. */
  async function authorization(config: oidc.Configuration, extra: Record<string, string> = {}) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid profile email groups',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...extra,
    });
    return { url: url.href, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce } };
  }

  /** A whole sign-in of the browser `jar` into `config`'s application: the callback's address and the checks. */
  async function codeFor(jar: CookieJar, config: oidc.Configuration = wiki, extra: Record<string, string> = {}) {
    const started = await authorization(config, extra);
    const end = await walk(jar, started.url);
    assert.equal(end.url.origin, APP, `ended at ${end.url} (${end.status}): ${end.html.slice(0, 500)}`);
    return { callback: end.url, checks: started.checks };
  }

  const discover = (clientId: string, secret?: string) =>
    oidc.discovery(new URL(issuer), clientId, secret, secret ? oidc.ClientSecretBasic(secret) : oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });

  before(async () => {
    gateway = await receiver();
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    issuer = `${publicUrl}/oidc`;
    s = await startServer(
      {
        port,
        publicUrl,
        users: {
          secondFactorGroups: ['vault'],
          secretsKey: SECRETS_KEY,
          sms: { sender: { url: gateway.url, body: { to: '{{to}}', text: '{{text}}' } }, defaultCountry: 'DE' },
        },
        identityProvider: {
          enabled: true,
          clients: [
            {
              clientId: 'wiki',
              name: 'The team wiki',
              secret: SECRET,
              redirectUris: [CALLBACK],
              postLogoutRedirectUris: [`${APP}/signed-out`],
            },
            { clientId: 'dashboard', name: 'The dashboard', redirectUris: [CALLBACK] },
          ],
          resources: [{ uri: API, scopes: ['reports:read'] }],
        },
      },
      { clock },
    );
    await s.createUser('ada', { email: 'ada@example.com', groups: ['staff', 'editors'] });
    await s.users(
      'setUser',
      { identity: 'ada', values: { realname: 'Ada Lovelace' } },
      { token: await s.adminToken() },
    );
    wiki = await discover('wiki', SECRET);
    dashboard = await discover('dashboard');
  });
  after(async () => {
    await s?.close();
    await gateway?.close();
  });

  test('discovery names the endpoints, S256 and the groups claim', () => {
    const meta = wiki.serverMetadata();
    assert.equal(meta.issuer, issuer);
    for (const endpoint of ['authorization', 'token', 'userinfo', 'jwks_uri', 'end_session'] as const) {
      const url = endpoint === 'jwks_uri' ? meta.jwks_uri : meta[`${endpoint}_endpoint`];
      assert.ok(url?.startsWith(`${issuer}/`), `${endpoint}: ${url}`);
    }
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
    assert.ok(meta.claims_supported?.includes('groups'));
    assert.ok(meta.scopes_supported?.includes('groups'));
  });

  test('code with PKCE: consent once, then the ID token, the userinfo and the groups', async () => {
    const jar = await signedIn('ada');
    const started = await authorization(wiki);
    const consent = await walk(jar, started.url, null);
    assert.equal(consent.status, 200);
    assert.match(consent.html, /The team wiki<\/strong> asks to sign you in/);
    assert.match(consent.html, /The groups your account is in/);
    const end = await walk(jar, consent.url.href);
    assert.equal(end.url.origin, APP, end.html.slice(0, 300));
    const tokens = await oidc.authorizationCodeGrant(wiki, end.url, started.checks);
    const claims = tokens.claims();
    const ada = (await s.users('getUser', { identity: 'ada' }, { token: await s.adminToken() })).body;
    assert.equal(claims?.sub, ada.user?.id ?? ada.id);
    assert.equal(claims?.name, 'Ada Lovelace');
    assert.equal(claims?.email, 'ada@example.com');
    // Roost keeps no proof of an address unless the configuration says so (identityProvider.emailVerified).
    assert.equal(claims?.email_verified, false);
    assert.deepEqual(claims?.groups, ['staff', 'editors']);
    const info = await oidc.fetchUserInfo(wiki, tokens.access_token, claims?.sub ?? '');
    assert.equal(info.preferred_username, 'ada');
    assert.deepEqual(info.groups, ['staff', 'editors']);
    // Consent is remembered for the account and the client: a new browser sign-in goes straight through.
    const again = await codeFor(await signedIn('ada'));
    assert.ok(again.callback.searchParams.get('code'));
  });

  test('not signed in: Roost’s sign-in page, which comes back to the interaction', async () => {
    const jar = new CookieJar();
    const started = await authorization(wiki);
    const end = await walk(jar, started.url);
    assert.equal(end.url.pathname, '/users/signin');
    const next = end.url.searchParams.get('next') ?? '';
    assert.match(next, /^\/oidc\/interaction\/[\w-]+$/);
    // Signed in now (the same browser), the interaction goes on to the application.
    const url = new URL(`${s.url}/users/api/signin`);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: jar.header(url) },
      body: JSON.stringify({ identity: 'ada', password: PASSWORD }),
    });
    jar.keep(url, res);
    const back = await walk(jar, `${s.url}${next}`);
    assert.equal(back.url.origin, APP, back.html.slice(0, 300));
    await oidc.authorizationCodeGrant(wiki, back.url, started.checks);
  });

  test('a wrong redirect_uri is refused on Roost’s page, never sent there', async () => {
    const jar = await signedIn('ada');
    const started = await authorization(wiki, { redirect_uri: 'http://127.0.0.1:9/elsewhere' });
    const end = await walk(jar, started.url);
    assert.notEqual(end.url.origin, APP);
    assert.equal(end.status, 400);
    assert.match(end.html, /redirect_uri/);
    assert.match(end.html, /<link[^>]+stylesheet|<style/);
  });

  test('without PKCE, or with plain, the application gets invalid_request', async () => {
    const jar = await signedIn('ada');
    for (const params of [{ code_challenge_method: 'plain' }, {}] as const) {
      const url = new URL(wiki.serverMetadata().authorization_endpoint ?? '');
      const query = { client_id: 'wiki', response_type: 'code', scope: 'openid', redirect_uri: CALLBACK, ...params };
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
      if ('code_challenge_method' in params) url.searchParams.set('code_challenge', 'x'.repeat(43));
      const end = await walk(jar, url.href);
      assert.equal(end.url.origin, APP);
      assert.equal(end.url.searchParams.get('error'), 'invalid_request', end.url.href);
      assert.equal(end.url.searchParams.get('code'), null);
    }
  });

  test('a public client: PKCE is its proof; a wrong verifier gets nothing', async () => {
    const jar = await signedIn('ada');
    const good = await codeFor(jar, dashboard);
    const tokens = await oidc.authorizationCodeGrant(dashboard, good.callback, good.checks);
    assert.equal(tokens.claims()?.preferred_username, 'ada');
    const other = await codeFor(jar, dashboard);
    await assert.rejects(
      oidc.authorizationCodeGrant(dashboard, other.callback, {
        ...other.checks,
        pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
      }),
      (err: oidc.ResponseBodyError) => err.error === 'invalid_grant',
    );
  });

  test('a replayed code is refused and takes back the tokens of its first exchange', async () => {
    const { callback, checks } = await codeFor(await signedIn('ada'));
    const tokens = await oidc.authorizationCodeGrant(wiki, callback, checks);
    const sub = tokens.claims()?.sub ?? '';
    assert.equal((await oidc.fetchUserInfo(wiki, tokens.access_token, sub)).sub, sub);
    await assert.rejects(
      oidc.authorizationCodeGrant(wiki, callback, checks),
      (err: oidc.ResponseBodyError) => err.error === 'invalid_grant',
    );
    await assert.rejects(
      oidc.fetchUserInfo(wiki, tokens.access_token, sub),
      (err: oidc.WWWAuthenticateChallengeError) =>
        err.status === 401 && err.cause[0]?.parameters.error === 'invalid_token',
    );
  });

  test('a disabled or removed account: its code exchanges for nothing', async () => {
    const admin = await s.adminToken();
    for (const [name, change] of [
      ['dora', () => s.users('setUser', { identity: 'dora', values: { active: false } }, { token: admin })],
      ['remy', () => s.users('removeUser', { identity: 'remy' }, { token: admin })],
    ] as const) {
      await s.createUser(name, { email: `${name}@example.com` });
      const { callback, checks } = await codeFor(await signedIn(name));
      assert.equal((await change()).status, 200);
      await assert.rejects(
        oidc.authorizationCodeGrant(wiki, callback, checks),
        (err: oidc.ResponseBodyError) => err.error === 'invalid_grant',
        name,
      );
    }
  });

  test('the user denies: the application gets access_denied', async () => {
    await s.createUser('dan');
    const started = await authorization(wiki);
    const end = await walk(await signedIn('dan'), started.url, 'deny');
    assert.equal(end.url.searchParams.get('error'), 'access_denied');
  });

  test('signed out of Roost: the next authorization asks for Roost’s sign-in again', async () => {
    const jar = await signedIn('ada');
    await codeFor(jar);
    const out = new URL(`${s.url}/users/api/signout`);
    const res = await fetch(out, {
      method: 'POST',
      headers: { cookie: jar.header(out), 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 200, await res.text());
    const started = await authorization(wiki);
    const end = await walk(jar, started.url);
    assert.equal(end.url.pathname, '/users/signin');
  });

  test('a second factor: a session without it is refused; signed in with it, the code comes', async () => {
    await s.createUser('grace');
    const jar = await signedIn('grace');
    // The authenticator app set up after this session's sign-in, with the password alone.
    const token = (await s.users('token', { identity: 'grace', password: PASSWORD })).body.token;
    const { secret } = (await s.users('totpEnrol', {}, { token })).body;
    assert.equal(
      (await s.users('totpConfirm', { code: totpCode(secret, now), password: PASSWORD }, { token })).status,
      200,
    );
    now += 30_000;
    const started = await authorization(wiki);
    const refused = await walk(jar, started.url);
    assert.equal(refused.status, 403);
    assert.match(refused.html, /needs a second factor/);
    // A sign-in with the code: the session passed it.
    const url = new URL(`${s.url}/users/api/signin`);
    const first = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: 'grace', password: PASSWORD }),
    });
    const { challenge } = (await first.json()) as { challenge: string };
    const second = await fetch(`${s.url}/users/api/signin2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ challenge, code: totpCode(secret, now) }),
    });
    assert.equal(second.status, 200);
    const fresh = new CookieJar();
    fresh.keep(url, second);
    const { callback, checks } = await codeFor(fresh);
    assert.equal((await oidc.authorizationCodeGrant(wiki, callback, checks)).claims()?.preferred_username, 'grace');
  });

  test('a second factor by SMS: a session without it is refused; signed in with its code, the code comes', async () => {
    const phone = '+4917012340001';
    const token = await s.createUser('sami');
    const before = await signedIn('sami');
    // The phone added after that session's sign-in, with the password alone: from now on a password is not enough.
    assert.equal((await s.users('smsAdd', { phone, password: PASSWORD }, { token })).status, 200);
    assert.equal((await s.users('smsConfirm', { code: await codeSentTo(phone) }, { token })).status, 200);
    const refused = await walk(before, (await authorization(wiki)).url);
    assert.equal(refused.status, 403);
    assert.match(refused.html, /needs a second factor/);
    const url = new URL(`${s.url}/users/api/signin`);
    const post = (to: URL | string, body: object) =>
      fetch(to, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { challenge } = (await (await post(url, { identity: 'sami', password: PASSWORD })).json()) as {
      challenge: string;
    };
    now += 60_000;
    assert.equal((await s.users('smsChallenge', { challenge })).status, 200);
    const second = await post(`${s.url}/users/api/signin2`, { challenge, smsCode: await codeSentTo(phone) });
    assert.equal(second.status, 200, await second.clone().text());
    const jar = new CookieJar();
    jar.keep(url, second);
    const { callback, checks } = await codeFor(jar);
    assert.equal((await oidc.authorizationCodeGrant(wiki, callback, checks)).claims()?.preferred_username, 'sami');
  });

  test('an anonymous account signs in to no application; upgraded, it does', async () => {
    // Made without a form by anybody where an app offers guest accounts: no account of the sign-up policy.
    await s.grant('signinAnonymous', ['sys:everyone']);
    const anon = (await s.users('signinAnonymous', {})).body as { token: string };
    const jar = new CookieJar();
    const cookies = jar.header.bind(jar);
    jar.header = (url) => [cookies(url), `auth=${anon.token}`].filter(Boolean).join('; ');
    const refused = await walk(jar, (await authorization(wiki)).url);
    assert.equal(refused.status, 403);
    assert.match(refused.html, /anonymous account/);
    const upgraded = await s.users(
      'upgradeAnonymous',
      { name: 'guest-now', password: PASSWORD },
      { token: anon.token },
    );
    assert.equal(upgraded.status, 200, JSON.stringify(upgraded.body));
    const { callback, checks } = await codeFor(jar);
    const claims = (await oidc.authorizationCodeGrant(wiki, callback, checks)).claims();
    assert.equal(claims?.preferred_username, 'guest-now');
  });

  test('JWT access tokens for a resource server, verified against the JWKS without calling Roost', async () => {
    const jar = await signedIn('ada');
    const { callback, checks } = await codeFor(jar, wiki, { resource: API, scope: 'openid groups reports:read' });
    const tokens = await oidc.authorizationCodeGrant(wiki, callback, checks, { resource: API });
    const jwks = createRemoteJWKSet(new URL(wiki.serverMetadata().jwks_uri ?? ''));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer, audience: API });
    assert.equal(protectedHeader.alg, 'RS256');
    assert.equal(protectedHeader.typ, 'at+jwt');
    assert.equal(payload.scope, 'reports:read');
    assert.equal(payload.client_id, 'wiki');
    assert.deepEqual(payload.groups, ['staff', 'editors']);
    assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 300);
    // One changed character of the payload: the signature no longer holds.
    const [head, body, signature] = tokens.access_token.split('.');
    const claims = { ...decodeJwt(tokens.access_token), groups: ['admins'] };
    const forged = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    assert.notEqual(body, forged.split('.')[1]);
    await assert.rejects(jwtVerify(forged, jwks, { issuer, audience: API }), /signature/);
    // A resource Roost does not serve: invalid_target.
    const started = await authorization(wiki, { resource: 'https://elsewhere.example' });
    const end = await walk(jar, started.url);
    assert.equal(end.url.searchParams.get('error'), 'invalid_target');
  });

  test('the application ends the session: Roost’s too when the person says so; its tokens are gone', async () => {
    for (const roostToo of [false, true]) {
      const jar = await signedIn('ada');
      const roostCookie = jar.header(new URL(s.url));
      const { callback, checks } = await codeFor(jar);
      const tokens = await oidc.authorizationCodeGrant(wiki, callback, checks);
      const end = oidc.buildEndSessionUrl(wiki, {
        id_token_hint: tokens.id_token ?? '',
        post_logout_redirect_uri: `${APP}/signed-out`,
        state: 'bye',
      });
      const framed = await fetch(end, { headers: { cookie: jar.header(end) } });
      assert.equal(framed.headers.get('x-frame-options'), 'DENY');
      assert.match(framed.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      const page = await walk(jar, end.href, null);
      assert.equal(page.status, 200);
      assert.match(page.html, /signing out of <strong>The team wiki<\/strong>/);
      const action = /id="op.logoutForm" method="post" action="([^"]+)"/.exec(page.html)?.[1] ?? '';
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
      const confirm = new URL(action);
      const res = await fetch(confirm, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(confirm), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf, ...(roostToo ? { logout: 'yes' } : {}) }),
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), `${APP}/signed-out?state=bye`);
      await assert.rejects(oidc.fetchUserInfo(wiki, tokens.access_token, tokens.claims()?.sub ?? ''), /challenge/);
      const identity = await fetch(`${s.url}/users/api/identity`, { headers: { cookie: roostCookie } });
      assert.equal(identity.status, roostToo ? 401 : 200, `sign out of Roost too: ${roostToo}`);
      assert.equal(
        res.headers.getSetCookie().some((c) => /^auth=;/.test(c)),
        roostToo,
      );
    }
  });

  test('another process on the same database: it exchanges this one’s code, with the same keys', async () => {
    const { config } = s.roost;
    const other = await startServer({
      publicUrl: config.publicUrl,
      dataDir: config.dataDir,
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      users: { secretsKey: SECRETS_KEY },
      identityProvider: {
        enabled: true,
        clients: [{ clientId: 'wiki', name: 'The team wiki', secret: SECRET, redirectUris: [CALLBACK] }],
      },
    });
    try {
      const there = (path: string) => `${other.url}/oidc${path}`;
      const discovered = (await (
        await fetch(`${issuer}/.well-known/openid-configuration`)
      ).json()) as oidc.ServerMetadata;
      const metadata = { ...discovered, token_endpoint: there('/token'), jwks_uri: there('/jwks') };
      const otherWiki = new oidc.Configuration(metadata, 'wiki', SECRET, oidc.ClientSecretBasic(SECRET));
      oidc.allowInsecureRequests(otherWiki);
      const { callback, checks } = await codeFor(await signedIn('ada'));
      const tokens = await oidc.authorizationCodeGrant(otherWiki, callback, checks);
      assert.equal(tokens.claims()?.preferred_username, 'ada');
      const keys = async (url: string) => (await (await fetch(url)).json()) as unknown;
      assert.deepEqual(await keys(there('/jwks')), await keys(`${issuer}/jwks`));
    } finally {
      await other.close();
    }
  });

  test('the applications page lists a consent and takes it back: the next sign-in asks again', async () => {
    await s.createUser('cleo');
    const jar = await signedIn('cleo');
    await codeFor(jar);
    const page = new URL(`${s.url}/users/applications`);
    const listed = await fetch(page, { headers: { cookie: jar.header(page) } });
    const html = await listed.text();
    assert.match(html, /<td>The team wiki<\/td><td>openid profile email groups<\/td>/);
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const cross = await fetch(page, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(page), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: 'not-the-token', client: 'wiki' }),
    });
    assert.equal(cross.status, 403);
    const taken = await fetch(page, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(page), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, client: 'wiki' }),
    });
    assert.equal(taken.status, 303);
    const again = await walk(jar, (await authorization(wiki)).url, null);
    assert.match(again.html, /The team wiki<\/strong> asks to sign you in/);
  });

  test('a group that comes to require a second factor: the session from before it is refused', async () => {
    await s.createUser('vic');
    const jar = await signedIn('vic');
    await codeFor(jar);
    const admin = await s.adminToken();
    assert.equal(
      (await s.users('setUser', { identity: 'vic', values: { groups: ['vault'] } }, { token: admin })).status,
      200,
    );
    const refused = await walk(jar, (await authorization(wiki)).url);
    assert.equal(refused.status, 403);
    assert.match(refused.html, /needs a second factor/);
    assert.notEqual(refused.url.origin, APP);
  });

  test('prompt=login and max_age: a sign-in older than asked gets login_required, a recent one the code', async () => {
    // Signed in a minute ago by Roost's clock.
    now = Date.now() - 60_000;
    const jar = await signedIn('ada');
    now = Date.now();
    await codeFor(jar);
    const stale = await walk(jar, (await authorization(wiki, { prompt: 'login' })).url);
    assert.equal(stale.url.searchParams.get('error'), 'login_required');
    const recent = await codeFor(jar, wiki, { max_age: '3600' });
    const tokens = await oidc.authorizationCodeGrant(wiki, recent.callback, { ...recent.checks, maxAge: 3600 });
    const authTime = Number(tokens.claims()?.auth_time);
    assert.ok(Math.abs(authTime - (now - 60_000) / 1000) < 5, `auth_time ${authTime} is the Roost sign-in's`);
  });

  test('the consent form: a wrong CSRF token or another account’s session gives no code', async () => {
    await s.createUser('eve');
    const jar = await signedIn('dan');
    const consent = await walk(jar, (await authorization(wiki)).url, null);
    assert.match(consent.html, /name="allow\$"/);
    const post = (cookie: string, csrf: string) =>
      fetch(consent.url, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, allow$: '1' }),
      });
    const forged = await post(jar.header(consent.url), 'not-the-token');
    assert.equal(forged.status, 403);
    assert.match(await forged.text(), /another site/);
    const cross = await fetch(consent.url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: jar.header(consent.url),
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      },
      body: new URLSearchParams({ csrf: /name="csrf" value="([^"]+)"/.exec(consent.html)?.[1] ?? '', allow$: '1' }),
    });
    assert.equal(cross.status, 403);
    // The same browser signed in as eve meanwhile: the interaction becomes eve's sign-in, asking her
    // consent, never taking dan's.
    const url = new URL(`${s.url}/users/api/signin`);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: jar.header(url) },
      body: JSON.stringify({ identity: 'eve', password: PASSWORD }),
    });
    jar.keep(url, res);
    const switched = await walk(jar, consent.url.href, null);
    assert.match(switched.html, /your Roost account <strong>eve<\/strong>/);
    // The library ended its session of dan on the way; eve's Roost session stays.
    const identity = new URL(`${s.url}/users/api/identity`);
    const me = await fetch(identity, { headers: { cookie: jar.header(identity) } });
    assert.equal(((await me.json()) as { name: string }).name, 'eve');
  });

  test('the keys: sealed in the database with users.secretsKey; the JWKS shows the public half only', async () => {
    const rows = await s.roost.db.selectFrom('idp_keys').select(['name', 'value']).orderBy('name').execute();
    assert.deepEqual(
      rows.map((r) => r.name),
      ['cookies', 'signing'],
    );
    for (const { value } of rows) {
      assert.match(value, /^v1\./);
      assert.doesNotMatch(value, /"d"|"kty"/);
    }
    const { keys } = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Record<string, string>[] };
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.kty, 'RSA');
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(keys[0]?.[secret], undefined, secret);
  });

  test('the configuration of applications: each mistake named where it is', () => {
    const problems = (clients: unknown[]): string[] => {
      try {
        parseConfig({ identityProvider: { enabled: true, clients } });
        return [];
      } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.problems;
      }
    };
    const wiki = { clientId: 'wiki', name: 'Wiki', redirectUris: [CALLBACK] };
    assert.deepEqual(problems([wiki]), []);
    assert.match(problems([wiki, wiki]).join('\n'), /identityProvider\.clients\.1\.clientId.*twice/);
    assert.match(problems([{ ...wiki, secret: 'short' }]).join('\n'), /clients\.0\.secret.*32/);
    assert.match(problems([{ ...wiki, redirectUris: ['not a url'] }]).join('\n'), /clients\.0\.redirectUris\.0/);
    assert.match(problems([{ ...wiki, redirectUris: [] }]).join('\n'), /clients\.0\.redirectUris/);
    assert.match(problems([{ ...wiki, clientId: 'a b' }]).join('\n'), /clients\.0\.clientId/);
  });

  test('an application registered on the admin page signs in at once; removed, it signs nobody in', async () => {
    await s.adminToken();
    const cookie = await authCookie(s, 'admin');
    const post = async (path: string, fields: Record<string, string>) => {
      const page = await getPage(s, path, cookie);
      assert.equal(page.status, 200, textOf(page.html));
      return postForm(s, path, { ...fields, csrf: csrfOf(page.html) }, { cookie, headers: { origin: s.url } });
    };
    const fields = { name: 'Reports', redirectUris: CALLBACK, confidential: 'true', add$: 'add$' };
    const taken = await post('/admin/applications', { ...fields, clientId: 'wiki' });
    assert.equal(taken.status, 422);
    assert.match(textOf(taken.html), /clientId: exists/);
    const made = await post('/admin/applications', { ...fields, clientId: 'reports' });
    assert.equal(made.status, 200, textOf(made.html));
    const secret = /<code id="new-secret">([^<]+)<\/code>/.exec(made.html)?.[1] ?? '';
    assert.match(secret, /^[\w-]{43}$/);
    const listed = await getPage(s, '/admin/applications', cookie);
    assert.ok(!listed.html.includes(secret), 'the secret is shown once');
    assert.match(textOf(listed.html), /Reports\s+reports\s+server \(secret\)/);
    const stored = await s.roost.db.selectFrom('idp_clients').select('secret').executeTakeFirstOrThrow();
    assert.match(stored.secret ?? '', /^v1\./);

    const reports = await discover('reports', secret);
    const jar = await signedIn('ada');
    const started = await authorization(reports);
    const consent = await walk(jar, started.url, null);
    assert.match(consent.html, /<strong>Reports<\/strong> asks to sign you in/);
    const end = await walk(jar, consent.url.href);
    assert.equal(
      (await oidc.authorizationCodeGrant(reports, end.url, started.checks)).claims()?.preferred_username,
      'ada',
    );

    const removed = await post('/admin/applications/reports', { confirm: 'reports', remove$: 'remove$' });
    assert.equal(removed.status, 303, textOf(removed.html));
    const refused = await walk(jar, (await authorization(reports)).url);
    assert.notEqual(refused.url.origin, APP);
    assert.equal(refused.status, 400);
    assert.match(refused.html, /client/);
  });
});
