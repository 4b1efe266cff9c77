import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { programCaller } from '../../src/roost.js';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { launchBrowser, screenshot, VIEWPORTS } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The sign-in pages' second step in Debian's chromium (admin/pages/second-step-form.ts): an
 * administrator whose group requires a factor sets one up while signing in (QR code, key, first
 * code, recovery codes shown once); a user with an authenticator signs in with a code, a wrong
 * code is said and can be tried again, a recovery code works once; a user who is no
 * administrator gets no session from the admin sign-in even with a right code. Codes come from
 * the key the page shows, at the times of a clock the test moves.
 */
const SUITE = 'second-factor';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

let now = Date.UTC(2026, 10, 26, 9, 0, 0);
const clock = { now: () => now };
const nextStep = () => {
  now += 30_000;
};

describe('second factor on the sign-in pages, in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** The administrator's page, signed in by the first test. */
  let bossPage: Page;

  async function freshPage(viewport: { width: number; height: number } = VIEWPORTS.laptop): Promise<Page> {
    const context = await browser.newContext({ baseURL: s.url, viewport });
    contexts.push(context);
    return context.newPage();
  }

  async function firstStep(page: Page, path: string, identity: string): Promise<void> {
    await page.goto(path);
    await page.fill('#signin-identity', identity);
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signinsignin\\$');
  }

  async function enterCode(page: Page, code: string): Promise<void> {
    await page.fill('#verify-code', code);
    await page.click('#verifyverify\\$');
  }

  /** An account with a confirmed authenticator, set up through the API; its secret. */
  async function withAuthenticator(name: string, groups: string[] = []): Promise<string> {
    const token = await s.createUser(name, { groups });
    const { secret } = (await s.users('totpEnrol', {}, { token })).body;
    const confirm = { code: totpCode(secret, now), password: PASSWORD };
    assert.equal((await s.users('totpConfirm', confirm, { token })).status, 200);
    nextStep();
    return secret;
  }

  before(async () => {
    s = await startServer({ users: { secondFactorGroups: ['admins'] } }, { clock });
    await s.roost.users.createUser(programCaller('test'), { name: 'boss', password: PASSWORD, groups: ['admins'] });
    browser = await launchBrowser();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await s?.close();
  });

  test('an administrator required to have a factor sets it up while signing in, sees the codes once', async () => {
    const page = await freshPage();
    await firstStep(page, '/admin/signin', 'boss');
    await page.locator('.qr svg').waitFor();
    const key = (await page.locator('.enrol code').innerText()).replace(/\s/g, '');
    assert.match(key, /^[A-Z2-7]{32}$/);
    await screenshot(page, SUITE, 'enrol-laptop');
    // A wrong first code: said, and a new key is shown (the scan may have been wrong).
    const wrong = totpCode(key, now) === '000000' ? '111111' : '000000';
    await enterCode(page, wrong);
    assert.match(await page.locator('body').innerText(), /The code is wrong, used or expired/);
    const key2 = (await page.locator('.enrol code').innerText()).replace(/\s/g, '');
    assert.notEqual(key2, key);
    await enterCode(page, totpCode(key2, now));
    const codes = await page.locator('.recovery-codes li').allInnerTexts();
    assert.equal(codes.length, 10);
    await screenshot(page, SUITE, 'recovery-codes-laptop');
    await page.click('text=Continue');
    assert.equal(new URL(page.url()).pathname, '/admin');
    nextStep();
    // The next sign-in asks for a code only.
    const again = await freshPage(VIEWPORTS.phone);
    await firstStep(again, '/admin/signin', 'boss');
    assert.equal(await again.locator('.qr').count(), 0);
    await screenshot(again, SUITE, 'code-phone');
    await enterCode(again, codes[0] as string);
    assert.equal(new URL(again.url()).pathname, '/admin');
    bossPage = again;
  });

  test('a user signs in with a code; a wrong code is said and can be tried again; a used code fails', async () => {
    const secret = await withAuthenticator('uma');
    const page = await freshPage();
    await firstStep(page, '/users/signin', 'uma');
    await screenshot(page, SUITE, 'user-code-laptop');
    const right = totpCode(secret, now);
    await enterCode(page, right === '123456' ? '654321' : '123456');
    assert.match(await page.locator('body').innerText(), /The code is wrong, used or expired/);
    await enterCode(page, right);
    assert.match(await page.locator('body').innerText(), /You are signed in as uma/);
    nextStep();
    // The same code again, from another browser: refused.
    const other = await freshPage();
    await firstStep(other, '/users/signin', 'uma');
    await enterCode(other, right);
    assert.match(await other.locator('body').innerText(), /The code is wrong, used or expired/);
  });

  test('a user who is no administrator gets no session from the admin sign-in, even with the right code', async () => {
    const secret = await withAuthenticator('vera');
    const page = await freshPage();
    await firstStep(page, '/admin/signin', 'vera');
    await enterCode(page, totpCode(secret, now));
    assert.match(await page.locator('body').innerText(), /no access to the management backend/);
    const cookies = await page.context().cookies();
    assert.equal(
      cookies.find((c) => c.name === 'auth'),
      undefined,
    );
    // The one session left is the setup's (password, through the API): none from the page.
    const sessions = await s.roost.users.userSessions(programCaller('test'), { identity: 'vera' });
    assert.deepEqual(
      sessions.map((x) => x.method),
      ['password'],
    );
    nextStep();
  });

  test('a challenge older than five minutes: the page says to sign in again', async () => {
    const secret = await withAuthenticator('walt');
    const page = await freshPage();
    await firstStep(page, '/users/signin', 'walt');
    now += 5 * 60_000 + 1;
    await enterCode(page, totpCode(secret, now));
    assert.match(await page.locator('body').innerText(), /The sign-in took too long or was used already/);
    await page.click('text=Sign in again');
    assert.equal(new URL(page.url()).pathname, '/users/signin');
    nextStep();
  });

  test('the account page: set up an authenticator, recovery codes, end a session, remove it', async () => {
    const other = await s.createUser('xena');
    const page = await freshPage();
    // Not signed in: the page sends to the sign-in, which comes back here.
    await page.goto('/users/account');
    assert.equal(new URL(page.url()).pathname, '/users/signin');
    await page.fill('#signin-identity', 'xena');
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signinsignin\\$');
    assert.equal(new URL(page.url()).pathname, '/users/account');
    await screenshot(page, SUITE, 'account-first-laptop');
    assert.equal(await page.locator('table tbody tr').count(), 2);
    await page.click('#enrolenrol\\$');
    const key = (await page.locator('.enrol code').innerText()).replace(/\s/g, '');
    await page.fill('#confirm-code', totpCode(key, now));
    await page.fill('#confirm-password', PASSWORD);
    await page.click('#confirmconfirm\\$');
    assert.equal(await page.locator('.recovery-codes li').count(), 10);
    await screenshot(page, SUITE, 'account-codes-laptop');
    nextStep();
    await page.goto('/users/account');
    assert.match(await page.locator('body').innerText(), /Recovery codes left: 10/);
    await screenshot(page, SUITE, 'account-laptop');

    // The other session (the API's token) ends from its row; this browser's has no button.
    await page.click('button[name="endSession$"]');
    assert.match(await page.locator('body').innerText(), /The session has ended/);
    assert.equal((await s.users('identity', {}, { token: other })).status, 401);
    assert.equal(await page.locator('table tbody tr').count(), 1);

    // New recovery codes and the removal ask for the password.
    await page.locator('summary', { hasText: 'New recovery codes' }).click();
    await page.fill('#codes-password', 'not-the-password');
    await page.click('#codescodes\\$');
    assert.match(await page.locator('details[open]').innerText(), /Not valid/);
    await page.fill('#codes-password', PASSWORD);
    await page.click('#codescodes\\$');
    assert.equal(await page.locator('.recovery-codes li').count(), 10);
    await page.goto('/users/account');
    await page.locator('summary', { hasText: 'Remove the authenticator' }).click();
    await page.fill('#remove-password', PASSWORD);
    await page.click('#removeremove\\$');
    assert.match(await page.locator('body').innerText(), /The authenticator is removed/);
    assert.equal((await s.users('token', { identity: 'xena', password: PASSWORD })).status, 200);
  });

  test('the account page refuses a post without the CSRF token or from another site', async () => {
    const token = await s.createUser('yves');
    const cookie = `auth=${token}`;
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${s.url}/users/account`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
        body,
      });
    assert.equal((await post({ origin: s.url }, 'endOthers$=1')).status, 403);
    assert.equal(
      (await post({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, 'endOthers$=1')).status,
      403,
    );
    assert.equal((await s.users('identity', {}, { token })).status, 200);
  });

  test("an administrator sees a user's factor and sessions, ends them, resets a lost authenticator", async () => {
    await withAuthenticator('zoe');
    const id = (await s.roost.users.getUser(programCaller('test'), { identity: 'zoe' })).id;
    const page = bossPage;
    await page.goto(`/admin/users/${id}`);
    await page.click('text=Second factor and sessions');
    assert.equal(new URL(page.url()).pathname, `/admin/users/${id}/security`);
    const text = await page.locator('main').innerText();
    assert.match(text, /Authenticator app\s+Set up/);
    assert.match(text, /Recovery codes left\s+10/);
    await screenshot(page, SUITE, 'admin-security-laptop');
    await page.click('button[name="endAll$"]');
    assert.match(await page.locator('body').innerText(), /Every session of zoe has ended/);
    assert.deepEqual(await s.roost.users.userSessions(programCaller('test'), { identity: 'zoe' }), []);
    await page.click('#reset2fareset\\$');
    assert.match(await page.locator('body').innerText(), /The second factor of zoe is reset/);
    assert.equal((await s.users('token', { identity: 'zoe', password: PASSWORD })).status, 200);
  });

  test('sign-in by mail: off, then on; the code, the link, and a second factor after the code', async () => {
    const page = await freshPage();
    await page.goto('/users/signin-mail');
    assert.match(await page.locator('main').innerText(), /Sign-in by mail is off/);
    await s.roost.users.changePermissions(programCaller('test'), {
      permissions: [{ permission: 'signinMail', groups: ['sys:everyone'], action: 'replace' }],
    });
    await s.createUser('milo');
    await page.goto('/users/signin');
    await page.click('text=Sign in with a code by mail');
    await page.fill('#ask-identity', 'milo@example.com');
    await page.click('#askask\\$');
    assert.match(await page.locator('main').innerText(), /If an account matches, we sent a mail/);
    const text = (await s.lastMail('milo@example.com')).text;
    const code = /sign-in code is (\d{6})/.exec(text)?.[1] as string;
    await page.fill('#code-code', code);
    await page.click('#codeenter\\$');
    assert.equal(new URL(page.url()).pathname, '/users/account');
    await screenshot(page, SUITE, 'mail-signed-in-laptop');

    // The link: its page shows a button; the GET alone signs nobody in.
    await s.users('signinMail', { identity: 'milo' });
    const link = new URL(/https?:\/\/\S+\?token=\S+/.exec((await s.lastMail('milo@example.com')).text)?.[0] ?? '');
    const other = await freshPage();
    await other.goto(link.pathname + link.search);
    assert.equal(
      (await other.context().cookies()).find((c) => c.name === 'auth'),
      undefined,
    );
    await other.click('#linklink\\$');
    assert.equal(new URL(other.url()).pathname, '/users/account');

    // An account with an authenticator: after the mailed code, the app's code.
    const secret = await withAuthenticator('nina');
    const third = await freshPage();
    await third.goto('/users/signin-mail');
    await third.fill('#ask-identity', 'nina');
    await third.click('#askask\\$');
    const ninaCode = /sign-in code is (\d{6})/.exec((await s.lastMail('nina@example.com')).text)?.[1] as string;
    await third.fill('#code-identity', 'nina');
    await third.fill('#code-code', ninaCode);
    await third.click('#codeenter\\$');
    await enterCode(third, totpCode(secret, now));
    assert.equal(new URL(third.url()).pathname, '/users/account');
    nextStep();
  });
});
