import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineExtension, refuse } from '../../src/roost.js';
import { programCaller } from '../../src/users/index.js';
import { ds, userIdOf } from '../helpers/datastore.js';
import { startOpenIdProvider, type TestOpenIdProvider } from '../helpers/oidc-provider.js';
import { csrfOf, getPage } from '../helpers/pages.js';
import { CookieJar, walk } from '../helpers/provider-flow.js';
import { freePort, PASSWORD, startServer, tokenFromMail, type TestServer } from '../helpers/test-server.js';

/**
 * Anonymous accounts over HTTP on both databases (users/signin-methods/anonymous/): made without
 * a form, writing items and files as their user id, upgraded in place by a password and by a
 * provider linked from the account page (a real OpenID Connect provider, test/helpers/oidc-provider.ts),
 * what they may not do, `sys:registered`, the sweep of unused ones, the per-address limit and the
 * cap under a parallel burst.
 */
const DAY = 86_400_000;

/** A sign-up's hook (docs/hooks.md) sees an upgrade as a sign-up of policy `anonymous`. */
const spamGate = defineExtension((roost) => {
  roost.hooks.before('user.signup', ({ policy, input }) => {
    if (policy === 'anonymous' && input.email?.endsWith('@spam.example'))
      throw refuse({ code: 'domain_refused', message: 'This domain may not sign up.', fields: { email: 'refused' } });
    return undefined;
  });
});

describe('anonymous accounts over HTTP', () => {
  let s: TestServer;
  let op: TestOpenIdProvider;
  let now = Date.now();
  const clock = { now: () => now };

  const anonymous = async () => {
    const res = await s.users('signinAnonymous', {});
    assert.equal(res.body.result, true, JSON.stringify(res.body));
    return res.body as { token: string; id: string; name: string; expires: number };
  };

  before(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    op = await startOpenIdProvider([`${publicUrl}/users/providers/corp/callback`]);
    s = await startServer(
      {
        port,
        publicUrl,
        users: {
          providers: [
            { id: 'corp', kind: 'oidc', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret },
          ],
          anonymous: { perAddress: 100, sweepDays: 7 },
        },
      },
      { clock, extensions: [spamGate] },
    );
  });
  after(async () => {
    await s?.close();
    await op?.close();
  });

  test('off until an administrator grants signinAnonymous', async () => {
    const res = await s.users('signinAnonymous', {});
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'not_allowed');
    await s.grant('signinAnonymous', ['sys:everyone']);
  });

  test('an anonymous account writes items and files; upgraded by a password, they stay its own', async () => {
    const anon = await anonymous();
    assert.match(anon.name, /^anon-[a-z0-9]{16}$/);
    assert.equal(await userIdOf(s, anon.token), anon.id);
    const sessions = (await s.users('sessions', {}, { token: anon.token })).body.sessions as { method: string }[];
    assert.deepEqual(
      sessions.map((x) => x.method),
      ['anonymous'],
    );
    const item = await ds(s, 'newItem', { key: 'anon-notes', value: 'draft' }, { token: anon.token });
    assert.equal(item.status, 200, JSON.stringify(item.body));
    const file = await s.request('/files/api/@newItem', { name: 'anon.txt', contents: 'kept' }, { token: anon.token });
    assert.equal(file.status, 200, JSON.stringify(file.body));

    // What needs an email or a password is refused until the upgrade.
    for (const [opName, body] of [
      ['verifyEmail', { email: 'x@example.com' }],
      ['message', { message: 'hello' }],
      ['updatePassword', { password: 'whatever', newpassword: 'another-password' }],
    ] as const) {
      const refused = await s.users(opName, body, { token: anon.token });
      assert.equal(refused.status, 403, opName);
      assert.equal(refused.body.code, 'anonymous_account', opName);
    }

    // Bad input is refused and changes nothing: the account stays anonymous.
    const bad = await s.users('upgradeAnonymous', { name: 'x', password: '' }, { token: anon.token });
    assert.equal(bad.body.code, 'validation_failure');
    assert.deepEqual(bad.body.invalid, [
      ['name', 'too short'],
      ['password', 'required'],
    ]);
    await s.createUser('taken-name');
    const taken = await s.users('upgradeAnonymous', { name: 'Taken-Name', password: PASSWORD }, { token: anon.token });
    assert.deepEqual(taken.body.invalid, [['name', 'exists']]);

    const hooked = await s.users(
      'upgradeAnonymous',
      { name: 'ada', password: PASSWORD, email: 'ada@spam.example' },
      { token: anon.token },
    );
    assert.equal(hooked.body.code, 'domain_refused');
    assert.equal((await s.users('message', { message: 'x' }, { token: anon.token })).body.code, 'anonymous_account');
    const upgraded = await s.users(
      'upgradeAnonymous',
      { name: 'ada', password: PASSWORD, email: 'ada@example.com' },
      { token: anon.token },
    );
    assert.deepEqual(upgraded.body, { result: true });
    // The same session and id; a password sign-in reaches the same account.
    assert.equal(await userIdOf(s, anon.token), anon.id);
    const signedIn = (await s.users('token', { identity: 'ada', password: PASSWORD })).body.token as string;
    assert.equal(await userIdOf(s, signedIn), anon.id);
    const again = await s.users('upgradeAnonymous', { name: 'ada2', password: PASSWORD }, { token: signedIn });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'not_anonymous');

    // Its item and file are its own: it changes them, and they name it.
    const read = await ds(s, 'getItem', { key: 'anon-notes' }, { token: signedIn });
    assert.equal(read.body.owner, 'ada');
    assert.equal((await ds(s, 'setItem', { key: 'anon-notes', value: 'final' }, { token: signedIn })).status, 200);
    const owner = await s.request('/files/api/anon.txt/@getOwner', {}, { token: await s.adminToken() });
    assert.equal(owner.body.owner, 'ada');
    // Now it may do what needs an email.
    assert.equal((await s.users('verifyEmail', { email: 'ada@example.com' }, { token: signedIn })).body.result, true);
  });

  test("an upgrade's email is the account's once a mail to it is answered (no address of another)", async () => {
    // The victim's address, which some provider vouches for: with users.linkProvidersByEmail its
    // first sign-in would join whichever account holds the address, here the attacker's.
    const anon = await anonymous();
    const upgraded = await s.users(
      'upgradeAnonymous',
      { name: 'squatter', password: PASSWORD, email: 'victim@example.com' },
      { token: anon.token },
    );
    assert.deepEqual(upgraded.body, { result: true });
    assert.equal((await s.roost.users.findUser(anon.id))?.email ?? null, null, 'not the address yet');
    assert.equal((await s.users('token', { identity: 'squatter', password: PASSWORD })).status, 200, 'upgraded');
    // The mail went to the address: whoever reads it makes it the account's.
    const mail = await s.lastMail('victim@example.com');
    assert.equal((await s.users('verifyEmail2', { token: tokenFromMail(mail) })).body.result, true);
    assert.equal((await s.roost.users.findUser(anon.id))?.email, 'victim@example.com');
    // An address another account has is refused before anything changes, as before.
    const other = await anonymous();
    const taken = await s.users(
      'upgradeAnonymous',
      { name: 'second-squatter', password: PASSWORD, email: 'victim@example.com' },
      { token: other.token },
    );
    assert.deepEqual(taken.body.invalid, [['email', 'exists']]);
    assert.equal((await s.roost.users.findUser(other.id))?.name, other.name);
  });

  test('parallel upgrades of one anonymous account: one wins, the others are told not_anonymous', async () => {
    const anon = await anonymous();
    const names = ['twin-a', 'twin-b', 'twin-c'];
    const answers = await Promise.all(
      names.map((name) => s.users('upgradeAnonymous', { name, password: `${name}-password` }, { token: anon.token })),
    );
    const won = names.filter((_, i) => answers[i]?.body.result === true);
    assert.equal(won.length, 1, JSON.stringify(answers.map((a) => a.body)));
    for (const lost of answers.filter((a) => a.body.result !== true)) assert.equal(lost.body.code, 'not_anonymous');
    // What the winner was told is what the account is: its name, its password.
    assert.equal((await s.roost.users.findUser(anon.id))?.name, won[0]);
    const signin = await s.users('token', { identity: won[0], password: `${won[0]}-password` });
    assert.equal(signin.status, 200, JSON.stringify(signin.body));
  });

  test('sys:registered leaves anonymous accounts out until they upgrade', async () => {
    const admin = await s.adminToken();
    const set = await ds(
      s,
      'setPermissions',
      { permissions: [{ permission: 'newItem', groups: ['sys:registered'], action: 'replace' }] },
      { token: admin, store: 'data' },
    );
    assert.equal(set.status, 200, JSON.stringify(set.body));
    try {
      const anon = await anonymous();
      const refused = await ds(s, 'newItem', { key: 'r1', value: 'v' }, { token: anon.token });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'not_allowed');
      const allowed = await s.users('allowed', { permission: 'upgradeAnonymous' }, { token: anon.token });
      assert.equal(allowed.body.result, true);
      await s.users('upgradeAnonymous', { name: 'reggie', password: PASSWORD }, { token: anon.token });
      const created = await ds(s, 'newItem', { key: 'r1', value: 'v' }, { token: anon.token });
      assert.equal(created.status, 200, JSON.stringify(created.body));
    } finally {
      await ds(
        s,
        'setPermissions',
        { permissions: [{ permission: 'newItem', groups: ['sys:authenticated'], action: 'replace' }] },
        { token: admin, store: 'data' },
      );
    }
  });

  test('upgraded by a provider linked on the account page, without a password; it signs in to it', async () => {
    const anon = await anonymous();
    await ds(s, 'newItem', { key: 'linked-notes', value: 'mine' }, { token: anon.token });
    const cookie = `auth=${anon.token}`;
    const page = (await getPage(s, '/users/account', cookie)).html;
    const csrf = csrfOf(page);
    // Its link form asks for no password: it has none.
    const linkForm = /<form method="post" action="\/users\/providers\/corp\/link">([\s\S]*?)<\/form>/.exec(page)?.[1];
    assert.ok(linkForm?.includes('Link') && !linkForm.includes('name="password"'), linkForm);
    const res = await fetch(`${s.url}/users/providers/corp/link`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: s.url },
      body: new URLSearchParams({ csrf }),
    });
    const html = await res.text();
    assert.equal(res.status, 200, html.slice(0, 500));
    const provider = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    if (!provider?.startsWith(op.issuer)) assert.fail(html);
    const jar = new CookieJar();
    jar.keep(new URL(`${s.url}/users/providers/corp/link`), res);
    await walk(jar, provider, 'linus-at-corp');
    const links = (await s.users('providerLinks', {}, { token: anon.token })).body.providers as { provider: string }[];
    assert.deepEqual(
      links.map((l) => l.provider),
      ['corp'],
    );
    const full = await s.users('upgradeAnonymous', { name: 'linus', password: PASSWORD }, { token: anon.token });
    assert.equal(full.body.code, 'not_anonymous');
    assert.notEqual(
      (await s.users('message', { message: 'hi' }, { token: anon.token })).body.code,
      'anonymous_account',
    );

    // A new sign-in with the provider (from Roost's pages) reaches the same account and its item.
    const signin = new CookieJar();
    const end = await walk(signin, `${s.url}/users/providers/corp/start?redirect=/users/account`, 'linus-at-corp');
    assert.equal(end.status, 200);
    const auth = signin.header(new URL(s.url));
    const token = /auth=([^;]+)/.exec(auth)?.[1];
    assert.ok(token, auth);
    assert.equal(await userIdOf(s, token), anon.id);
    assert.equal((await ds(s, 'getItem', { key: 'linked-notes' }, { token })).body.value, 'mine');
  });

  test('the hourly purge sweeps anonymous accounts unused for sweepDays, and no other', async () => {
    const idle = await anonymous();
    const busy = await anonymous();
    const upgraded = await anonymous();
    await s.users('upgradeAnonymous', { name: 'stays', password: PASSWORD }, { token: upgraded.token });
    now += 4 * DAY;
    // Used now: its last use is kept with the session.
    assert.equal(await userIdOf(s, busy.token), busy.id);
    now += 4 * DAY;
    await s.roost.users.purgeExpired(programCaller('test'));
    assert.equal((await s.users('identity', {}, { token: idle.token })).status, 401);
    assert.equal(await userIdOf(s, busy.token), busy.id);
    assert.equal(await userIdOf(s, upgraded.token), upgraded.id);
    const gone = await s.users('getUser', { identity: idle.id }, { token: await s.adminToken() });
    assert.equal(gone.body.code, 'unknown_user');
  });
});

describe('anonymous accounts: the per-address limit and the cap', () => {
  let s: TestServer;
  let now = Date.now();
  const clock = { now: () => now };

  before(async () => {
    s = await startServer(
      { users: { anonymous: { perAddress: 8, windowSeconds: 60, max: 5, sweepDays: 1 } } },
      { clock },
    );
    await s.grant('signinAnonymous', ['sys:everyone']);
  });
  after(() => s?.close());

  test('a parallel burst makes exactly the cap; the address is limited; the sweep makes room', async () => {
    const burst = await Promise.all(Array.from({ length: 8 }, () => s.users('signinAnonymous', {})));
    const made = burst.filter((r) => r.body.result === true);
    const refused = burst.filter((r) => r.body.result !== true);
    assert.equal(made.length, 5);
    for (const r of refused) {
      assert.equal(r.status, 503);
      assert.equal(r.body.code, 'anonymous_limit');
    }
    assert.equal(new Set(made.map((r) => r.body.id as string)).size, 5);

    const limited = await s.users('signinAnonymous', {});
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'rate_limited');
    assert.equal(limited.headers.get('retry-after'), '60');

    // A new window: the address may again, but the cap is still full.
    now += 61_000;
    assert.equal((await s.users('signinAnonymous', {})).body.code, 'anonymous_limit');
    // Unused for a day, they are swept, and new ones can be made.
    now += 2 * DAY;
    assert.equal((await s.roost.users.purgeExpired(programCaller('test'))) >= 5, true);
    const fresh = await s.users('signinAnonymous', {});
    assert.equal(fresh.body.result, true, JSON.stringify(fresh.body));
  });
});
