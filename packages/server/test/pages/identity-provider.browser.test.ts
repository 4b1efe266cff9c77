import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot, VIEWPORTS } from '../helpers/browser.js';
import { freePort, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Roost as an OpenID Connect provider in Debian's chromium (identity-provider/): an application
 * sends the browser to Roost, which shows its sign-in page, then its consent page, then sends the
 * browser back with a code the application exchanges. In a real browser, because Chrome holds
 * a form's `form-action` ('self' on Roost's pages) to the redirects after its post: the way on
 * to the application after the sign-in and consent forms is a page, not a redirect
 * (idp-routes.ts `continuePage`). The protocol's refusals are in http/identity-provider.test.ts.
 */
const SUITE = 'identity-provider';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('Roost as an OpenID Connect provider in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let app: Server;
  let callback = '';
  let wiki: oidc.Configuration;
  /** The addresses browsers arrived at in the application. */
  const landed: string[] = [];

  before(async () => {
    const appPort = await freePort();
    callback = `http://127.0.0.1:${appPort}/callback`;
    app = createServer((req, res) => {
      landed.push(`http://127.0.0.1:${appPort}${req.url}`);
      res.end('the wiki');
    });
    await new Promise<void>((resolve) => app.listen(appPort, '127.0.0.1', resolve));
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const secret = 'a-client-secret-of-the-team-wiki-0123456789';
    s = await startServer({
      port,
      publicUrl,
      identityProvider: {
        enabled: true,
        clients: [{ clientId: 'wiki', name: 'The team wiki', secret, redirectUris: [callback] }],
      },
    });
    // One account per viewport: each sees the consent page once.
    for (const name of ['ada', 'alan']) await s.createUser(name, { email: `${name}@example.com`, groups: ['staff'] });
    wiki = await oidc.discovery(new URL(`${publicUrl}/oidc`), 'wiki', secret, oidc.ClientSecretBasic(secret), {
      execute: [oidc.allowInsecureRequests],
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await new Promise((resolve) => app?.close(resolve));
  });

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    const who = name === 'laptop' ? 'ada' : 'alan';
    test(`sign in, allow on the consent page, back in the application with a code (${name})`, async () => {
      const context = await browser.newContext({ viewport, baseURL: s.url });
      const page = await context.newPage();
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(wiki, {
        redirect_uri: callback,
        scope: 'openid profile email groups',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      await page.goto(url.href);
      assert.equal(new URL(page.url()).pathname, '/users/signin');
      await page.fill('#signin-identity', who);
      await page.fill('#signin-password', PASSWORD);
      await page.click('#signinsignin\\$');
      await page.waitForSelector('button[name="allow$"]');
      const card = await page.textContent('.consent');
      assert.match(card ?? '', new RegExp(`The team wiki asks to sign you in with your Roost account ${who}\\.`));
      assert.match(card ?? '', /The groups your account is in/);
      assert.match(card ?? '', /Your email address/);
      await screenshot(page, SUITE, `consent-${name}`);
      await page.click('button[name="allow$"]');
      await page.waitForURL(`${callback}?**`);
      const arrived = new URL(page.url());
      assert.ok(landed.includes(arrived.href));
      const tokens = await oidc.authorizationCodeGrant(wiki, arrived, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      assert.deepEqual(tokens.claims()?.groups, ['staff']);
      // The consent is remembered: a second sign-in of the same browser goes straight back.
      const again = oidc.buildAuthorizationUrl(wiki, {
        redirect_uri: callback,
        scope: 'openid groups',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      await page.goto(again.href);
      await page.waitForURL(`${callback}?**`);
      assert.ok(new URL(page.url()).searchParams.get('code'));
      await context.close();
    });
  }

  test('Deny on the consent page: the application gets access_denied', async () => {
    await s.createUser('dan');
    const context = await browser.newContext({ baseURL: s.url });
    const page = await context.newPage();
    const url = oidc.buildAuthorizationUrl(wiki, {
      redirect_uri: callback,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    await page.goto(url.href);
    await page.fill('#signin-identity', 'dan');
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signinsignin\\$');
    await page.click('button[name="deny$"]');
    await page.waitForURL(`${callback}?**`);
    assert.equal(new URL(page.url()).searchParams.get('error'), 'access_denied');
    await context.close();
  });
});
