import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { freePort, PASSWORD, startServer, type TestServer } from '../../server/test/helpers/test-server.js';
import { startOpenIdProvider, type TestOpenIdProvider } from '../../server/test/helpers/oidc-provider.js';
import { appIdToken } from '../../server/test/helpers/provider-flow.js';
import { openPasskeyPage, type BundleGlobals, type TestPage } from './helpers/pages.js';

/**
 * Issue 45's anonymous and native rows from a page, through the served bundle in chromium:
 * anonymous accounts made without a form write items and become full accounts, by a password
 * and by a passkey (the DevTools protocol's virtual authenticator), keeping their items and id;
 * an app's ID token, issued by a local OpenID Connect provider (oidc-provider, through the code
 * flow an app's SDK runs), signs in from the page. WebAuthn needs a host name, so this Roost's
 * public address is `http://localhost:<port>`, mapped to 127.0.0.1 (helpers/pages.ts, `openPasskeyPage`).
 */

type PageGlobals = BundleGlobals;
const APP_CALLBACK = 'http://127.0.0.1:9/app-callback';

describe('anonymous accounts and ID tokens through the served bundle in chromium', () => {
  let s: TestServer;
  let op: TestOpenIdProvider;
  let browser: Browser;
  let tp: TestPage;

  before(async () => {
    op = await startOpenIdProvider([], [{ clientId: 'web-app', redirectUri: APP_CALLBACK }]);
    const port = await freePort();
    const site = `http://localhost:${port}`;
    s = await startServer({
      port,
      publicUrl: site,
      dataStores: { data: {} },
      users: {
        providers: [
          {
            id: 'corp',
            kind: 'oidc',
            issuer: op.issuer,
            clientId: op.clientId,
            clientSecret: op.clientSecret,
            clientIds: ['web-app'],
          },
        ],
      },
    });
    await s.grant('signinAnonymous', ['sys:everyone']);
    await s.grant('signupDirect', ['sys:everyone']);
    ({ browser, tp } = await openPasskeyPage(site));
  });
  after(async () => {
    await tp?.close();
    await browser?.close();
    await s?.close();
    await op?.close();
  });

  test('an anonymous account writes items, becomes a full one by a password or a passkey, items kept', async () => {
    const outcome = await tp.page.evaluate(
      async ({ password }) => {
        const { roost } = window as unknown as PageGlobals;
        /** An anonymous account from the page, with two items of its own. */
        const visitor = async (key: string) => {
          const users = roost.users();
          const made = await users.signinAnonymous();
          const data = roost.datastore('data', { token: made.token });
          await data.newItem([
            { key: `${key}-1`, value: 1 },
            { key: `${key}-2`, value: 'two' },
          ]);
          return { users, data, made };
        };
        const ann = await visitor('ann');
        await ann.users.upgradeAnonymous('ann', password, { email: 'ann@example.com' });
        const signedIn = roost.users();
        await signedIn.token('ann', password);
        const annKeys = (
          await roost.datastore('data', { token: signedIn.options.token as string }).keys({ owner: 'ann' })
        ).keys;

        const pia = await visitor('pia');
        // An anonymous account has no password: its session is its proof (docs/users.md, "Anonymous accounts").
        await pia.users.registerPasskey({} as { password: string }, 'phone');
        const byPasskey = roost.users();
        await byPasskey.signinWithPasskey();
        const piaKeys = (await roost.datastore('data', { token: byPasskey.options.token as string }).keys()).keys;
        return {
          annSame: (await signedIn.identity()).id === ann.made.id,
          annKeys,
          piaSame: (await byPasskey.identity()).id === pia.made.id,
          piaName: (await byPasskey.identity()).name,
          piaKeys,
        };
      },
      { password: PASSWORD },
    );
    assert.equal(outcome.annSame, true);
    assert.deepEqual([...outcome.annKeys].sort(), ['ann-1', 'ann-2']);
    assert.equal(outcome.piaSame, true);
    assert.match(outcome.piaName, /^anon-/);
    assert.deepEqual(outcome.piaKeys.filter((k: string) => k.startsWith('pia-')).sort(), ['pia-1', 'pia-2']);
  });

  test("an app's ID token from the local provider signs in from the page, once", async () => {
    const nonce = randomBytes(16).toString('base64url');
    const idToken = await appIdToken(op.issuer, 'web-app', APP_CALLBACK, 'ida', nonce);
    const outcome = await tp.page.evaluate(
      async ({ idToken, nonce }) => {
        const { roost } = window as unknown as PageGlobals;
        const users = roost.users();
        await users.signinIdToken('corp', idToken, nonce);
        const who = await users.identity();
        const again = await roost
          .users()
          .signinIdToken('corp', idToken, nonce)
          .catch((e: { code: string }) => e.code);
        return { name: who.name, email: who.email, again };
      },
      { idToken, nonce },
    );
    assert.deepEqual(outcome, { name: 'ida', email: 'ida@example.com', again: 'invalid_id_token' });
  });
});
