import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenIdProvider, type TestOpenIdProvider } from '../helpers/oidc-provider.js';
import { CookieJar, startFakeOAuth2, walk, type FakeOAuth2 } from '../helpers/provider-flow.js';
import { freePort, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Presets over HTTP on both databases (users/provider-presets.ts): the `discord` declaration end to
 * end against a stand-in that answers as Discord's OAuth2 and user API do (its endpoints moved to
 * the stand-in by `issuer`), and the `apple` preset's `response_mode=form_post` through a real
 * OpenID Connect provider (test/helpers/oidc-provider.ts), whose answer is posted to the callback.
 */
const APP = 'http://127.0.0.1:9/app/';

interface DiscordPerson {
  id: string;
  username: string;
  global_name: string;
  email: string;
  verified: boolean;
}

describe('provider presets over HTTP', () => {
  let s: TestServer;
  let discord: FakeOAuth2<DiscordPerson>;
  let op: TestOpenIdProvider;

  before(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    discord = await startFakeOAuth2<DiscordPerson>(
      { authorize: '/oauth2/authorize', token: '/api/oauth2/token' },
      { '/api/users/@me': (person) => person },
      {
        clientId: 'discord-client',
        clientSecret: 'discord-secret',
        person: {
          id: '80351110224678912',
          username: 'nelly',
          global_name: 'Nelly N',
          email: 'nelly@example.com',
          verified: true,
        },
      },
    );
    op = await startOpenIdProvider([`${publicUrl}/users/providers/apple/callback`]);
    s = await startServer({
      port,
      publicUrl,
      users: {
        providers: [
          {
            id: 'discord',
            kind: 'discord',
            issuer: discord.url,
            clientId: discord.clientId,
            clientSecret: discord.clientSecret,
          },
          // Apple's preset at the test provider (a plain secret: the JWT one is unit-tested, provider-presets.test.ts).
          {
            id: 'apple',
            kind: 'apple',
            issuer: op.issuer,
            clientId: op.clientId,
            clientSecret: op.clientSecret,
            scopes: ['openid', 'email', 'profile'],
          },
        ],
        providerRedirects: [APP],
      },
    });
    await s.grant('signupDirect', ['sys:everyone']);
  });
  after(async () => {
    await s?.close();
    await discord?.close();
    await op?.close();
  });

  test("discord: the declaration's endpoints, token request and user API's fields make the account", async () => {
    const providers = (await s.users('providers', {})).body.providers as { id: string; label: string }[];
    assert.deepEqual(providers, [
      { id: 'discord', label: 'Discord' },
      { id: 'apple', label: 'Apple' },
    ]);
    const jar = new CookieJar();
    const start = `${s.url}/users/providers/discord/start?redirect=${encodeURIComponent(APP)}`;
    const end = await walk(jar, start, 'unused', [new URL(APP).origin]);
    const grant = end.url.searchParams.get('roost_signin');
    assert.ok(grant, end.url.href);
    const token = (await s.users('signinProvider2', { grant })).body.token as string;
    const identity = (await s.users('identity', {}, { token })).body;
    assert.equal(identity.name, 'nelly');
    assert.equal(identity.realname, 'Nelly N');
    assert.equal(identity.email, 'nelly@example.com');
    const links = (await s.users('providerLinks', {}, { token })).body.providers as { provider: string }[];
    assert.deepEqual(
      links.map((l) => l.provider),
      ['discord'],
    );
  });

  test('apple: no prompt, the answer posted back (form_post), the session as after any provider', async () => {
    const jar = new CookieJar();
    const startRes = await fetch(`${s.url}/users/providers/apple/start?redirect=/users/account`, {
      redirect: 'manual',
    });
    jar.keep(new URL(s.url), startRes);
    const authorization = new URL(startRes.headers.get('location') ?? '');
    assert.equal(authorization.searchParams.get('response_mode'), 'form_post');
    assert.equal(authorization.searchParams.get('prompt'), null);
    const end = await walk(jar, authorization.href, 'appleseed');
    assert.equal(end.status, 200, end.text.slice(0, 300));
    assert.equal(end.url.pathname, '/users/account');
    const token = /auth=([^;]+)/.exec(jar.header(new URL(s.url)))?.[1];
    assert.ok(token);
    assert.equal((await s.users('identity', {}, { token })).body.name, 'appleseed');

    // A posted answer whose state is not this browser's ends as any other: provider_failed.
    const forged = await fetch(`${s.url}/users/providers/apple/callback`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code: 'x', state: 'not-a-state', id_token: 'ignored' }),
    });
    assert.equal(forged.status, 303);
    const next = new URL(forged.headers.get('location') ?? '', s.url);
    assert.equal(next.searchParams.get('id_token'), null);
    const answered = await fetch(next, { redirect: 'manual' });
    assert.equal(answered.status, 422);
  });
});
