import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportPKCS8, generateKeyPair, jwtVerify, decodeProtectedHeader } from 'jose';
import { parseConfig } from '../core/config.js';
import { appleClientSecret } from './apple-client-secret.js';
import { endpointAt, PROVIDER_PRESETS, readProfile, type ProviderPreset } from './provider-presets.js';

/** A scope as the configuration's schema takes one (core/config-signin.ts). */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/;

/** What each OAuth2 provider's user API answers, in its documented shape, and the profile Roost reads of it. */
const USER_ANSWERS: Record<string, { answer: unknown; profile: ReturnType<typeof readProfile> }> = {
  discord: {
    answer: {
      id: '80351110224678912',
      username: 'nelly',
      global_name: 'Nelly',
      email: 'nelly@example.com',
      verified: true,
    },
    profile: {
      subject: '80351110224678912',
      email: 'nelly@example.com',
      emailVerified: true,
      username: 'nelly',
      realname: 'Nelly',
    },
  },
  facebook: {
    answer: { id: '10158', name: 'Fay Book', email: 'fay@example.com' },
    profile: { subject: '10158', email: 'fay@example.com', emailVerified: false, username: null, realname: 'Fay Book' },
  },
  x: {
    answer: { data: { id: '2244994945', name: 'X Dev', username: 'XDevelopers' } },
    profile: { subject: '2244994945', email: null, emailVerified: false, username: 'XDevelopers', realname: 'X Dev' },
  },
  spotify: {
    answer: { id: 'wizzler', display_name: 'Wizz', email: 'wizz@example.com', product: 'premium' },
    profile: { subject: 'wizzler', email: 'wizz@example.com', emailVerified: false, username: null, realname: 'Wizz' },
  },
  bitbucket: {
    answer: { uuid: '{d301aafa-d676-4ee0-88be-962be7417567}', username: 'bb', display_name: 'Bit Bucket' },
    profile: {
      subject: '{d301aafa-d676-4ee0-88be-962be7417567}',
      email: null,
      emailVerified: false,
      username: 'bb',
      realname: 'Bit Bucket',
    },
  },
};

const presets = Object.entries(PROVIDER_PRESETS) as [string, ProviderPreset][];

for (const [kind, preset] of presets) {
  test(`preset ${kind}: a well-formed declaration the configuration takes`, () => {
    assert.ok(preset.label.length > 0 && preset.label.length <= 60);
    assert.ok(preset.scopes.length > 0);
    for (const scope of preset.scopes) assert.match(scope, SCOPE);
    const provider: Record<string, unknown> = { id: 'p', kind, clientId: 'client' };
    if (preset.protocol === 'oidc') {
      if (preset.issuer === null) {
        // The team's own issuer: the configuration must name it.
        assert.throws(() => parseConfig({ users: { providers: [provider] } }), /issuer/);
        provider.issuer = 'https://sso.example.com/realms/acme';
      } else {
        const issuer = new URL(preset.issuer.replace('{tenant}', 'common'));
        assert.equal(issuer.protocol, 'https:');
        assert.equal(issuer.search, '');
      }
    } else {
      for (const endpoint of [preset.authorization, preset.token, preset.user])
        assert.equal(new URL(endpoint).protocol, 'https:', endpoint);
      assert.ok(['post', 'basic'].includes(preset.auth));
      const sample = USER_ANSWERS[kind];
      assert.ok(sample, `a sample answer of ${kind}'s user API`);
      assert.deepEqual(readProfile(sample.answer, preset.profile), sample.profile);
      // An answer without the id is no profile.
      assert.equal(readProfile({}, preset.profile).subject, null);
    }
    assert.equal(parseConfig({ users: { providers: [provider] } }).users.providers[0]?.kind, kind);
  });
}

test('every kind of the configuration is a preset, oidc or github', () => {
  const kinds = new Set([...Object.keys(PROVIDER_PRESETS), 'oidc', 'github']);
  assert.throws(() => parseConfig({ users: { providers: [{ id: 'p', kind: 'myspace', clientId: 'c' }] } }));
  assert.equal(kinds.size, Object.keys(PROVIDER_PRESETS).length + 2);
});

test("an OAuth2 preset's endpoints move to the configured issuer's origin, path and query kept", () => {
  assert.equal(
    endpointAt('https://graph.facebook.com/me?fields=id,name,email', 'http://127.0.0.1:4000/ignored').href,
    'http://127.0.0.1:4000/me?fields=id,name,email',
  );
  assert.equal(endpointAt('https://discord.com/api/users/@me', undefined).href, 'https://discord.com/api/users/@me');
});

test("Apple's client secret: an ES256 JWT of the team's key for the client, renewed before its end", async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  let now = Date.UTC(2026, 10, 29, 12);
  const key = { teamId: 'TEAM123456', keyId: 'KEY1234567', privateKey: await exportPKCS8(privateKey) };
  const secret = appleClientSecret('com.example.web', key, () => now);
  const first = await secret.renew();
  assert.equal(decodeProtectedHeader(first).kid, 'KEY1234567');
  const { payload, protectedHeader } = await jwtVerify(first, publicKey, {
    issuer: 'TEAM123456',
    subject: 'com.example.web',
    audience: 'https://appleid.apple.com',
    currentDate: new Date(now),
    algorithms: ['ES256'],
  });
  assert.equal(protectedHeader.alg, 'ES256');
  assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 3600);
  now += 40 * 60_000;
  assert.equal(await secret.renew(), first, 'kept while it has more than ten minutes');
  now += 15 * 60_000;
  assert.notEqual(await secret.renew(), first, 'made anew near its end');
  // The configuration takes the key only in its shape.
  assert.throws(() =>
    parseConfig({
      users: { providers: [{ id: 'a', kind: 'apple', clientId: 'c', apple: { ...key, teamId: 'short' } }] },
    }),
  );
});
