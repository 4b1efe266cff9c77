import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { totpCode } from '../../server/src/users/signin-methods/totp/totp.js';
import { freePort, PASSWORD, startServer, type TestServer } from '../../server/test/helpers/test-server.js';
import { assertNoPageErrors, openPasskeyPage, type BundleGlobals, type TestPage } from './helpers/pages.js';
import { PASSKEY_OPERATIONS } from './helpers/roost.js';

/**
 * Passkeys through the served bundle in chromium, with the DevTools protocol's virtual
 * authenticator: `registerPasskey`, `passkeys`, `renamePasskey`, `signinWithPasskey` (token and
 * cookie), `passkeySecondStep` after a password, `removePasskey`. WebAuthn needs a host name as
 * its relying party, so this Roost's public address is `http://localhost:<port>` (mapped to
 * 127.0.0.1), unlike the other connector suites'. The passkey operations are covered here; the
 * other suites' "every operation" checks leave them to this one (PASSKEY_OPERATIONS).
 */

type PageGlobals = BundleGlobals;

describe('passkeys through the served bundle in chromium', () => {
  let s: TestServer;
  let site = '';
  let browser: Browser;
  let tp: TestPage;

  before(async () => {
    const port = await freePort();
    site = `http://localhost:${port}`;
    s = await startServer({ port, publicUrl: site });
    ({ browser, tp } = await openPasskeyPage(site));
  });
  after(async () => {
    await tp?.close();
    await browser?.close();
    await s?.close();
  });

  test('register, list, rename; sign in with it (token and cookie) and as a second step; remove', async () => {
    const token = await s.createUser('vic');
    const registered = await tp.page.evaluate(
      async ({ token, password }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const vic = roost.users({ token, ...track('users') });
        // The token alone does not bind a passkey: the password again (docs/users.md, "Passkeys").
        const alone = await vic.registerPasskey({ password: 'wrong' }).catch((e: { code: string }) => e.code);
        const { passkey } = await vic.registerPasskey({ password }, 'laptop');
        await vic.renamePasskey(passkey.id, 'work laptop');
        const names = (await vic.passkeys()).passkeys.map((p) => p.name);
        const anyone = roost.users(track('users'));
        await anyone.signinWithPasskey();
        const viaToken = (await anyone.identity()).name;
        const cookie = roost.users({ credentials: 'same-origin', ...track('users') });
        await cookie.signinWithPasskey({ cookie: true });
        const viaCookie = (await cookie.identity()).name;
        await cookie.signout();
        return { id: passkey.id, alone, names, viaToken, viaCookie };
      },
      { token, password: PASSWORD },
    );
    assert.deepEqual(
      { ...registered, id: typeof registered.id },
      { id: 'string', alone: 'validation_failure', names: ['work laptop'], viaToken: 'vic', viaCookie: 'vic' },
    );

    const { secret } = (await s.users('totpEnrol', {}, { token })).body;
    await s.users('totpConfirm', { code: totpCode(secret, Date.now()), password: PASSWORD }, { token });
    const second = await tp.page.evaluate(
      async ({ token, password, id }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const phone = roost.users(track('users'));
        const step = await phone.token('vic', password).catch((e: unknown) => roost.secondFactorChallenge(e));
        if (!step || !('challenge' in step)) throw new Error('no challenge');
        await phone.passkeySecondStep(step.challenge);
        const name = (await phone.identity()).name;
        await roost.users({ token, ...track('users') }).removePasskey(id, { password });
        const left = (await roost.users({ token, ...track('users') }).passkeys()).passkeys.length;
        return { methods: step.methods, name, left };
      },
      { token, password: PASSWORD, id: registered.id },
    );
    assert.deepEqual(second, { methods: ['totp', 'recovery', 'passkey'], name: 'vic', left: 0 });
  });

  test('every passkey operation was called through the served bundle', async () => {
    const called = new Set(await tp.page.evaluate(() => (window as unknown as PageGlobals).called));
    assert.deepEqual(
      PASSKEY_OPERATIONS.filter((op) => !called.has(`users.${op}`)),
      [],
    );
    assertNoPageErrors(tp);
  });
});
