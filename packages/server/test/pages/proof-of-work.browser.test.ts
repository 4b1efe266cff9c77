import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot, VIEWPORTS } from '../helpers/browser.js';
import { addAccount, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The proof of work in the pages (admin/page-kit/proof-of-work-field.ts) with `users.proofOfWork`
 * at `always`, in Debian's chromium under the pages' own Content-Security-Policy: the ALTCHA
 * widget, served by Roost, solves the challenge in a worker as the page loads, and the form's post
 * carries the solution; without JavaScript the post carries none and is refused with the words of
 * `challenge_required`. SQLite pass only (the check itself runs on both in http/proof-of-work.test.ts).
 */
const SUITE = 'proof-of-work';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('proof of work in the pages', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    // About 40 PBKDF2 tries of 100 iterations: the widget's work in tens of milliseconds.
    s = await startServer({
      users: { proofOfWork: { mode: 'always', cost: 100, counterMin: 20, counterMax: 60 } },
    });
    await addAccount(s.roost, 'wren');
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL: s.url, viewport: VIEWPORTS.laptop });
    page = await context.newPage();
    // A refused script, style or worker (the CSP) or an error of the widget shows here.
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  /** Waits for the widget to have put its solution into the form. */
  async function solvedOn(p: Page, form: string): Promise<void> {
    await p.waitForFunction(
      (selector) => {
        const input = document.querySelector<HTMLInputElement>(`${selector} input[name="altcha"]`);
        return Boolean(input?.value);
      },
      form,
      { timeout: 20_000 },
    );
  }

  test('sign-in page: the widget solves as the page loads, the sign-in passes, no CSP refusal', async () => {
    await page.goto('/users/signin');
    await page.fill('#signin-identity', 'wren');
    await page.fill('#signin-password', PASSWORD);
    await solvedOn(page, 'form#signin');
    await screenshot(page, SUITE, 'signin-solved');
    await Promise.all([page.waitForURL(/\/users\/signin|\/users\/account|\/$/), page.click('#signinsignin\\$')]);
    const cookies = await context.cookies();
    assert.ok(
      cookies.some((c) => c.name === 'auth'),
      `signed in: ${await page.locator('main').innerText()}`,
    );
    assert.deepEqual(problems, [], 'the widget runs under the pages CSP without a refusal');
  });

  test('without JavaScript the post carries no proof: refused with the words of challenge_required', async () => {
    const plain = await browser.newContext({ baseURL: s.url, javaScriptEnabled: false });
    try {
      const p = await plain.newPage();
      await p.goto('/users/signin');
      await p.fill('#signin-identity', 'wren');
      await p.fill('#signin-password', PASSWORD);
      await p.click('#signinsignin\\$');
      const text = await p.locator('main').innerText();
      assert.match(text, /solve the challenge|Too many sign-ins/i, text);
      assert.ok(!(await plain.cookies()).some((c) => c.name === 'auth'));
    } finally {
      await plain.close();
    }
  });

  test('reset page: the mail is asked for with the solved proof', async () => {
    await page.goto('/users/reset-password');
    await page.fill('#request-form-identity', 'wren');
    await solvedOn(page, 'form#request-form');
    await page.click('#request-formrequest\\$');
    assert.match(await page.locator('main').innerText(), /If an account matches/);
  });
});
