import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { startSamlIdp, type TestSamlIdp } from '../helpers/saml-idp.js';
import { freePort, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * SAML single sign-on end to end in Debian's chromium (users/signin-methods/saml/): the sign-in
 * page's "sign in with your company" form, the test identity provider (test/helpers/saml-idp.ts)
 * on `localhost`, another site than Roost's 127.0.0.1, whose page posts the signed answer to the
 * ACS by its script, and back signed in. The post is cross-site as in production: the RelayState
 * cookie (SameSite Lax) is not sent with it, and the 303 to the next step brings it back.
 */
const SUITE = 'saml';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('SAML single sign-on in a browser', { skip }, () => {
  let s: TestServer;
  let idp: TestSamlIdp;
  let browser: Browser;

  before(async () => {
    idp = await startSamlIdp({ host: 'localhost' });
    const port = await freePort();
    s = await startServer({
      port,
      publicUrl: `http://127.0.0.1:${port}`,
      users: {
        saml: [
          {
            id: 'acme',
            name: 'Acme',
            idp: { entityId: idp.entityId, ssoUrl: idp.ssoUrl, certs: [idp.keys.cert] },
            attributes: { email: 'mail' },
            domains: ['acme.example'],
          },
        ],
      },
    });
    await s.grant('signupDirect', ['sys:everyone']);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await idp?.close();
  });

  test('"sign in with your company": the work address, the IdP, and back signed in', async () => {
    idp.next = { nameId: 'nia', attributes: { mail: ['nia@acme.example'] } };
    const context = await browser.newContext({ baseURL: s.url });
    const page = await context.newPage();
    await page.goto('/users/signin');
    await page.fill('form.company input[name="email"]', 'nia@acme.example');
    await screenshot(page, SUITE, 'company-form');
    await page.click('form.company button');
    // Through the IdP's page (it posts at once) and back to the sign-in page, which now says who is signed in.
    await page.locator('main', { hasText: /signed in as nia/i }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/users/signin');
    assert.equal(idp.requests.length, 1);
    assert.equal(idp.answers.length, 1);
    const nia = await s.roost.users.findUser('nia');
    assert.equal(nia?.email, 'nia@acme.example');
    await context.close();
  });
});
