import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { launchBrowser, screenshot, VIEWPORTS } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * A trusted device in the sign-in page (admin/pages/second-step-form.ts; users/trusted-devices.ts)
 * in Debian's chromium: the second step offers "Trust this device", the browser keeps the device's
 * token in an HttpOnly cookie, and its next sign-in asks the password alone; another browser
 * still gets the second step. SQLite pass only (the rules: http/trusted-devices.test.ts).
 */
const SUITE = 'trusted-devices';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('trusted devices in the sign-in page', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let secret: string;
  // The server's clock, moved a TOTP step on after each code (each code is taken once).
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  const code = () => {
    const value = totpCode(secret, clock.now());
    offset += 30_000;
    return value;
  };

  before(async () => {
    s = await startServer({ users: { trustedDeviceDays: 14 } }, { clock });
    const token = await s.createUser('tess');
    secret = (await s.users('totpEnrol', {}, { token })).body.secret;
    assert.equal((await s.users('totpConfirm', { code: code(), password: PASSWORD }, { token })).status, 200);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  async function passwordStep(page: import('playwright-core').Page): Promise<void> {
    await page.goto('/users/signin');
    await page.fill('#signin-identity', 'tess');
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signinsignin\\$');
  }

  test('trusting the device: the next sign-in asks the password alone; another browser the code too', async () => {
    const context = await browser.newContext({ baseURL: s.url, viewport: VIEWPORTS.laptop });
    const page = await context.newPage();
    await passwordStep(page);
    await page.waitForSelector('#verify-code');
    assert.match(await page.locator('form#verify').innerText(), /Trust this device for 14 days/);
    await screenshot(page, SUITE, 'second-step');
    await page.fill('#verify-code', code());
    await page.check('#verify-trust');
    await page.click('#verifyverify\\$');
    await page.waitForURL((url) => !url.pathname.startsWith('/users/signin') || url.search === '');
    const cookies = await context.cookies();
    const device = cookies.find((c) => c.name === 'roost_trusted_device');
    assert.ok(device, 'the device cookie is kept');
    assert.equal(device.httpOnly, true);
    assert.ok(cookies.some((c) => c.name === 'auth'));

    // Signed out (the session's cookie gone, the device's kept): the password alone signs in.
    await context.clearCookies({ name: 'auth' });
    await passwordStep(page);
    await page.waitForLoadState();
    assert.equal(await page.locator('#verify-code').count(), 0, 'no second step on the trusted device');
    assert.ok(
      (await context.cookies()).some((c) => c.name === 'auth'),
      'signed in with the password alone',
    );

    const other = await browser.newContext({ baseURL: s.url });
    try {
      const otherPage = await other.newPage();
      await passwordStep(otherPage);
      await otherPage.waitForSelector('#verify-code');
    } finally {
      await other.close();
      await context.close();
    }
  });
});
