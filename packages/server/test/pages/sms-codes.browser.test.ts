import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot, signedInContext } from '../helpers/browser.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Codes by SMS on the pages, in Debian's chromium (admin/signin-methods/sms-code-page.ts): a
 * user adds a number on the account page (the password again), confirms it with the code the
 * local gateway got, sees the recovery codes once, and then signs in on the sign-in page with
 * the code the second step sends; a wrong number and a wrong code are said on the page. With
 * `smsSignin` granted, the sign-in page links to `/users/signin-sms`, where the number's code signs in.
 */
const SUITE = 'sms-codes';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('codes by SMS on the pages, in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let gateway: Awaited<ReturnType<typeof receiver>>;

  /** The code of the newest text the gateway got. */
  async function lastCode(): Promise<string> {
    await s.roost.mailQueue.idle();
    const text = JSON.parse(gateway.received.at(-1)?.body ?? '{}') as { text?: string };
    const code = /\d{6}/.exec(text.text ?? '')?.[0];
    assert.ok(code, JSON.stringify(text));
    return code;
  }

  before(async () => {
    gateway = await receiver();
    s = await startServer({ users: { sms: { sender: { url: gateway.url }, resendSeconds: 0, defaultCountry: 'GB' } } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await gateway?.close();
  });

  test('a number added on the account page, then the sign-in page sends and takes its code', async () => {
    await s.createUser('sia');
    const context = await signedInContext(browser, s.url, 'sia', PASSWORD);
    const page: Page = await context.newPage();
    await page.goto('/users/account');
    const section = page.locator('#sms');
    // A premium-rate number is said to be wrong, and nothing is sent.
    await section.locator('#smsAdd-phone').fill('+44 909 876 5432');
    await section.locator('#smsAdd-password').fill(PASSWORD);
    await section.locator('#smsAddsmsAdd\\$').click();
    assert.match(await section.innerText(), /Not a mobile number: texts go to mobiles only/);
    assert.equal(gateway.received.length, 0);
    await section.locator('#smsAdd-phone').fill('+44 7911 123456');
    await section.locator('#smsAdd-password').fill(PASSWORD);
    await section.locator('#smsAddsmsAdd\\$').click();
    assert.match(await page.locator('body').innerText(), /A code was sent to \+447911123456/);
    await section.locator('#smsConfirm-code').fill('000000');
    await section.locator('#smsConfirmsmsConfirm\\$').click();
    assert.match(await section.innerText(), /Code from the text message: Not valid/);
    await section.locator('#smsConfirm-code').fill(await lastCode());
    await section.locator('#smsConfirmsmsConfirm\\$').click();
    assert.equal(await page.locator('#sms .recovery-codes li').count(), 10);
    await page.goto('/users/account');
    assert.equal(await section.locator('.phone').innerText(), '+447911123456');
    await screenshot(page, SUITE, 'account');
    await context.close();

    const fresh = await browser.newContext({ baseURL: s.url });
    const signin = await fresh.newPage();
    await signin.goto('/users/signin');
    await signin.fill('#signin-identity', 'sia');
    await signin.fill('#signin-password', PASSWORD);
    await signin.click('#signinsignin\\$');
    assert.match(await signin.locator('body').innerText(), /We sent a code to your phone/);
    const code = await lastCode();
    await signin.fill('#verify-code', code === '111111' ? '222222' : '111111');
    await signin.click('#verifyverify\\$');
    assert.match(await signin.locator('body').innerText(), /The code is wrong, used or expired/);
    await signin.fill('#verify-code', code);
    await signin.click('#verifyverify\\$');
    assert.match(await signin.locator('body').innerText(), /You are signed in as sia/);
    await fresh.close();
  });

  test('with smsSignin granted, the sign-in page links to a sign-in by a code by SMS', async () => {
    await s.grant('smsSignin', ['sys:everyone']);
    const context = await browser.newContext({ baseURL: s.url });
    const page = await context.newPage();
    await page.goto('/users/signin');
    await page.click('text=Sign in with a code by SMS');
    await page.fill('#ask-phone', '+447911123456');
    await page.click('#askask\\$');
    assert.match(await page.locator('body').innerText(), /If an account has this number, we sent it a code/);
    // The code's form stands open after the ask, the number filled in; typed as people do here.
    await page.fill('#code-phone', '07911 123456');
    await page.fill('#code-code', await lastCode());
    await page.click('#codeenter\\$');
    assert.equal(new URL(page.url()).pathname, '/users/account');
    assert.equal(await page.locator('#sms .phone').innerText(), '+447911123456');
    await context.close();
  });
});
