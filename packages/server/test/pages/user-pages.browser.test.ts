import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot, VIEWPORTS } from '../helpers/browser.js';
import { startServer, tokenFromMail, type TestServer } from '../helpers/test-server.js';

/**
 * Sign-up with each policy from the page, and the pages the mails link to, walked in Debian's
 * chromium by people who are not signed in; screenshots on laptop and phone. SQLite pass only
 * (the user service's storage is covered on both databases by the HTTP tests).
 */
const SUITE = 'pages';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;
const POLICIES = ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw', 'signupUid'];
const NEW_PASSWORD = 'a-new-password-9';

/** The path and query of the link in a mail (the test server's public url is not its port). */
function linkOf(text: string): string {
  const url = /https?:\/\/\S+\?token=\S+/.exec(text)?.[0];
  if (!url) throw new Error(`no link in mail: ${text}`);
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

describe('user pages in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let phonePage: Page;

  async function shoot(name: string): Promise<void> {
    await screenshot(page, SUITE, `${name}-laptop`);
    await phonePage.goto(page.url());
    await screenshot(phonePage, SUITE, `${name}-phone`);
  }

  /** Can `identity` get a token with `password`? */
  const signsIn = async (identity: string, password: string) =>
    (await s.users('token', { identity, password })).body?.token !== undefined;

  async function signUp(policy: string, fields: Record<string, string>, on: Page = page): Promise<string> {
    await on.goto(`/users/signup?policy=${policy}`);
    for (const [id, value] of Object.entries(fields)) await on.fill(`#signup-${id}`, value);
    await on.click('#signupsignup\\$');
    return on.locator('.done').innerText();
  }

  before(async () => {
    s = await startServer();
    for (const policy of POLICIES) await s.grant(policy, ['sys:everyone']);
    browser = await launchBrowser();
    page = await (await browser.newContext({ baseURL: s.url, viewport: VIEWPORTS.laptop })).newPage();
    phonePage = await (await browser.newContext({ baseURL: s.url, viewport: VIEWPORTS.phone })).newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('sign-up by each policy, with the right words; opt-in through its page; a used code fails', async () => {
    await page.goto('/users/signup');
    assert.deepEqual(await page.locator('.tabs li').allInnerTexts(), [
      'Create an account',
      'Create an account (confirmed by mail)',
      'Ask for an account',
      'Get an account with a mailed password',
      'Create an account with a generated name',
    ]);
    await shoot('signup');

    assert.match(
      await signUp('signupDirect', {
        name: 'dora',
        email: 'dora@example.com',
        password: 'dora-password',
        'password-confirm': 'dora-password',
      }),
      /ready\. You can sign in now/,
    );
    assert.ok(await signsIn('dora', 'dora-password'));

    assert.match(
      await signUp('signupOptin', {
        name: 'otto',
        email: 'otto@example.com',
        password: 'otto-password',
        'password-confirm': 'otto-password',
      }),
      /Check your mail: we sent a link to otto@example\.com/,
    );
    assert.ok(!(await signsIn('otto', 'otto-password')), 'pending until activated');
    const activation = linkOf((await s.lastMail('otto@example.com')).text);
    assert.match(activation, /^\/users\/activate\?token=/);
    await page.goto(activation);
    assert.equal(await page.inputValue('#token-form-token'), tokenFromMail(await s.lastMail('otto@example.com')));
    await shoot('activate');
    await page.click('#token-formconfirm\\$');
    assert.match(await page.locator('.done').innerText(), /Your account is active/);
    await screenshot(page, SUITE, 'activate-done-laptop');
    assert.ok(await signsIn('otto', 'otto-password'));
    // The link again: the code is used.
    await page.goto(activation);
    await page.click('#token-formconfirm\\$');
    assert.match(await page.locator('.roost-form').innerText(), /The code is unknown, used or expired/);
    await screenshot(page, SUITE, 'activate-used-laptop');

    assert.match(
      await signUp('signupReview', {
        name: 'rita',
        email: 'rita@example.com',
        password: 'rita-password',
        'password-confirm': 'rita-password',
      }),
      /An administrator will review/,
    );
    assert.ok(!(await signsIn('rita', 'rita-password')), 'pending until reviewed');

    assert.match(
      await signUp('signupSendpw', { name: 'sam', email: 'sam@example.com' }),
      /we sent your password to sam@example\.com/,
    );
    const mailed = /this password: (\S+)/.exec((await s.lastMail('sam@example.com')).text)?.[1];
    assert.ok(mailed && (await signsIn('sam', mailed)));

    const done = await signUp(
      'signupUid',
      { email: 'uma@example.com', password: 'uma-password', 'password-confirm': 'uma-password' },
      phonePage,
    );
    const generated = await phonePage.locator('code.generated-name').innerText();
    assert.match(generated, /^[a-z0-9]{30}$/);
    assert.match(done, new RegExp(`generated name is ${generated}`));
    await screenshot(phonePage, SUITE, 'signup-uid-done-phone');
    assert.ok(await signsIn(generated, 'uma-password'));
  });

  test('email verification from the mailed link', async () => {
    const token = await s.createUser('vera');
    assert.equal((await s.users('verifyEmail', { email: 'vera.new@example.com' }, { token })).body.result, true);
    await page.goto(linkOf((await s.lastMail('vera.new@example.com')).text));
    await shoot('verify-email');
    await page.click('#token-formconfirm\\$');
    assert.match(await page.locator('.done').innerText(), /new email address is confirmed/);
    assert.equal((await s.users('profile', {}, { token })).body.email, 'vera.new@example.com');
  });

  test('password reset: the mail asked for on the page, a new password from its link; the old one fails', async () => {
    await s.createUser('petra', { password: 'petra-old-password' });
    // Without a code the page starts with the request of one; the code's form waits folded.
    await page.goto('/users/reset-password');
    assert.equal(await page.locator('#token-form-newpassword').isVisible(), false);
    await page.fill('#request-form-identity', 'petra@example.com');
    await page.click('#request-formrequest\\$');
    assert.match(await page.locator('main section.card').innerText(), /If an account matches, we sent a mail/);
    // Asked for: the form for the code stands open.
    assert.equal(await page.locator('#token-form-newpassword').isVisible(), true);
    await shoot('reset-password-request');
    await page.goto(linkOf((await s.lastMail('petra@example.com')).text));
    await shoot('reset-password');
    // The two passwords differ: refused, nothing changed.
    await page.fill('#token-form-newpassword', NEW_PASSWORD);
    await page.fill('#token-form-newpassword-confirm', `${NEW_PASSWORD}x`);
    await page.click('#token-formconfirm\\$');
    assert.match(await page.locator('#token-form-container').innerText(), /did not match/);
    assert.ok(await signsIn('petra', 'petra-old-password'));
    await page.fill('#token-form-newpassword', NEW_PASSWORD);
    await page.fill('#token-form-newpassword-confirm', NEW_PASSWORD);
    await page.click('#token-formconfirm\\$');
    assert.match(await page.locator('.done').innerText(), /Your password has been changed/);
    await screenshot(page, SUITE, 'reset-password-done-laptop');
    assert.ok(await signsIn('petra', NEW_PASSWORD));
    assert.ok(!(await signsIn('petra', 'petra-old-password')));
  });
});
