import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { userIdOf } from '../helpers/datastore.js';
import { startOpenIdProvider, type TestOpenIdProvider } from '../helpers/oidc-provider.js';
import { appIdToken as appToken } from '../helpers/provider-flow.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Sign-in with an ID token a native app got on the device (users/signin-methods/id-token/), over
 * HTTP on both databases. The tokens are real: issued by a local OpenID Connect provider
 * (test/helpers/oidc-provider.ts) to public app clients through the authorization code flow an
 * app's SDK runs; the hostile ones are tokens of another client, expired, with another nonce,
 * unsigned (`alg: none`), signed by a key the issuer never published, and a used one.
 */
const APP_CALLBACK = 'http://127.0.0.1:9/app-callback';
const APPS = ['ios-app', 'android-app', 'stranger-app'];
const HOUR = 3_600_000;

describe('ID tokens from apps over HTTP', () => {
  let s: TestServer;
  let op: TestOpenIdProvider;
  let now = Date.now();
  const clock = { now: () => now };

  /** The ID token an app's SDK gets for `login` as client `clientId`, with `nonce` given to the provider. */
  const appIdToken = (clientId: string, login: string, nonce: string) =>
    appToken(op.issuer, clientId, APP_CALLBACK, login, nonce);

  const signin = (provider: string, idToken: string, nonce: string, token?: string) =>
    s.users('signinIdToken', { provider, idToken, nonce }, token ? { token } : {});

  before(async () => {
    op = await startOpenIdProvider(
      [],
      APPS.map((clientId) => ({ clientId, redirectUri: APP_CALLBACK })),
    );
    s = await startServer(
      {
        users: {
          providers: [
            // The web client's id, and the app's iOS and Android clients whose tokens sign in too.
            {
              id: 'corp',
              kind: 'oidc',
              issuer: op.issuer,
              clientId: op.clientId,
              clientSecret: op.clientSecret,
              clientIds: ['ios-app', 'android-app'],
            },
            // Apple's preset at this provider: the nonce in the token is the hash of the app's.
            { id: 'apple', kind: 'apple', issuer: op.issuer, clientId: 'ios-app' },
          ],
        },
      },
      { clock },
    );
    await s.grant('signupDirect', ['sys:everyone']);
  });
  after(async () => {
    await s?.close();
    await op?.close();
  });

  test("an app's ID token signs in once; the other app's client reaches the same account", async () => {
    const nonce = oidc.randomNonce();
    const idToken = await appIdToken('ios-app', 'ines', nonce);
    const first = await signin('corp', idToken, nonce);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.result, true);
    const identity = (await s.users('identity', {}, { token: first.body.token })).body;
    assert.equal(identity.name, 'ines');
    assert.equal(identity.email, 'ines@example.com');
    const sessions = (await s.users('sessions', {}, { token: first.body.token })).body.sessions as { method: string }[];
    assert.deepEqual(
      sessions.map((x) => x.method),
      ['idToken'],
    );

    const replayed = await signin('corp', idToken, nonce);
    assert.equal(replayed.status, 401);
    assert.equal(replayed.body.code, 'invalid_id_token');
    assert.deepEqual(replayed.body.invalid, [['idToken', 'used']]);

    const androidNonce = oidc.randomNonce();
    const android = await signin('corp', await appIdToken('android-app', 'ines', androidNonce), androidNonce);
    assert.equal(await userIdOf(s, android.body.token), identity.id);
  });

  test("Apple's preset: the token carries the SHA-256 of the app's nonce", async () => {
    const nonce = oidc.randomNonce();
    const hashed = createHash('sha256').update(nonce).digest('hex');
    const ok = await signin('apple', await appIdToken('ios-app', 'abel', hashed), nonce);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    // The raw nonce in the token is not what Apple's SDKs send: refused.
    const raw = oidc.randomNonce();
    const refused = await signin('apple', await appIdToken('ios-app', 'abel', raw), raw);
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body.invalid, [['nonce', 'invalid']]);
  });

  test('hostile tokens are refused with invalid_id_token, and make no account', async () => {
    const before = (await s.users('list', {}, { token: await s.adminToken() })).body.total as number;
    const refused = async (idToken: string, nonce: string, reason: [string, string]) => {
      const res = await signin('corp', idToken, nonce);
      assert.equal(res.status, 401, JSON.stringify(res.body));
      assert.equal(res.body.code, 'invalid_id_token');
      assert.deepEqual(res.body.invalid, [reason]);
    };
    // Another client of the same provider: not one of Roost's audiences.
    const n1 = oidc.randomNonce();
    await refused(await appIdToken('stranger-app', 'mallory', n1), n1, ['idToken', 'invalid']);
    // The right token with another nonce (a token taken from another sign-in).
    const n2 = oidc.randomNonce();
    await refused(await appIdToken('ios-app', 'mallory', n2), oidc.randomNonce(), ['nonce', 'invalid']);
    // Unsigned: `alg: none` with the claims of a real one.
    const n3 = oidc.randomNonce();
    const real = await appIdToken('ios-app', 'mallory', n3);
    const [, payload] = real.split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    await refused(unsigned, n3, ['idToken', 'invalid']);
    // Signed by a key the issuer never published, with its kid and every claim right.
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const kid = (await exportJWK(publicKey)).n?.slice(0, 16) ?? 'k';
    const forged = await new SignJWT({ nonce: n3, email: 'mallory@example.com', email_verified: true })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(op.issuer)
      .setAudience('ios-app')
      .setSubject('mallory')
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + 600)
      .sign(privateKey);
    await refused(forged, n3, ['idToken', 'invalid']);
    // Expired: Roost's clock two hours on (the provider's tokens live one).
    const n4 = oidc.randomNonce();
    const late = await appIdToken('ios-app', 'mallory', n4);
    now += 2 * HOUR;
    try {
      await refused(late, n4, ['idToken', 'expired']);
    } finally {
      now -= 2 * HOUR;
    }
    const after = (await s.users('list', {}, { token: await s.adminToken() })).body.total as number;
    assert.equal(after, before);

    // Bad input: the failure body, below 500.
    const unknown = await signin('nowhere', real, n3);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'unknown_provider');
    const garbage = await s.users('signinIdToken', { provider: 'corp', idToken: 'not a token' });
    assert.equal(garbage.body.code, 'validation_failure');
    assert.deepEqual(garbage.body.invalid, [
      ['idToken', 'invalid'],
      ['nonce', 'required'],
    ]);
  });

  test('an anonymous account signing in with an ID token becomes a full one, with the same id', async () => {
    await s.grant('signinAnonymous', ['sys:everyone']);
    const anon = (await s.users('signinAnonymous', {})).body as { token: string; id: string };
    const nonce = oidc.randomNonce();
    const res = await signin('corp', await appIdToken('ios-app', 'nadia', nonce), nonce, anon.token);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(await userIdOf(s, res.body.token), anon.id);
    const upgraded = await s.users('upgradeAnonymous', { name: 'nadia2', password: PASSWORD }, { token: anon.token });
    assert.equal(upgraded.body.code, 'not_anonymous');
    // The provider account signs in to it from now on.
    const again = oidc.randomNonce();
    const later = await signin('corp', await appIdToken('android-app', 'nadia', again), again);
    assert.equal(await userIdOf(s, later.body.token), anon.id);
  });
});
