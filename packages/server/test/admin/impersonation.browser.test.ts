import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, signedInContext, VIEWPORTS } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Issue 42, item 6: an administrator impersonates a user from the user's admin page, in chromium
 * at phone size. Every page shows the banner with End while it lasts; the admin backend is
 * closed meanwhile; what needs the account's own password stays out of reach; End, one click,
 * gives the administrator their own session back; start and end are in the audit log.
 * SQLite pass only, as every browser suite.
 */
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('impersonation in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let carolId = '';

  before(async () => {
    s = await startServer({});
    await s.adminToken();
    await s.createUser('carol');
    await s.createUser('root2', { groups: ['admins'] });
    carolId = (await s.users('getUser', { identity: 'carol' }, { token: await s.adminToken() })).body.id;
    browser = await launchBrowser();
    context = await signedInContext(browser, s.url, 'admin', PASSWORD, { viewport: VIEWPORTS.phone });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const banner = () => page.locator('.impersonation');

  test('started from the user page: the account page of the user, with the banner', async () => {
    await page.goto(`/admin/users/${carolId}`);
    assert.equal(await banner().count(), 0);
    await page.getByRole('link', { name: 'Act as this user' }).click();
    await page.getByRole('button', { name: 'Act as carol' }).click();
    await page.waitForURL('**/users/account');
    assert.match(await banner().innerText(), /You are acting as carol/);
    assert.ok(await banner().getByRole('button', { name: 'End' }).isVisible(), 'End is on screen at phone size');
    assert.equal(await page.locator('.signout span').textContent(), 'carol', 'signed in as carol');
    assert.match(await page.locator('div.messages').innerText(), /You are acting as carol until you end it/);
  });

  test('the admin backend is closed while it lasts; the banner is there too', async () => {
    for (const path of ['/admin', '/admin/users', '/admin/keys', `/admin/users/${carolId}/impersonate`]) {
      const answer = await page.goto(path);
      assert.equal(answer?.status(), 403, path);
      assert.match(await banner().innerText(), /You are acting as carol/, path);
    }
    // The session is carol's: her permissions, none of the administrator's, and no way to change
    // how she signs in without her password.
    const token = (await context.cookies()).find((c) => c.name === 'auth')?.value ?? '';
    assert.equal((await s.users('identity', {}, { token })).body.name, 'carol');
    assert.equal((await s.request('/api/keys', undefined, { method: 'GET', token })).status, 403);
    const changed = await s.users(
      'updatePassword',
      { password: 'a-guess', newpassword: 'another-password-1' },
      { token },
    );
    assert.notEqual(changed.body.result, true, JSON.stringify(changed.body));
  });

  test('End, one click: the administrator is back on the user page; both ends are recorded', async () => {
    await page.goto('/users/account');
    await banner().getByRole('button', { name: 'End' }).click();
    await page.waitForURL(`**/admin/users/${carolId}`);
    assert.equal(await banner().count(), 0);
    assert.match(await page.locator('div.messages').innerText(), /carol was impersonated until now/);
    assert.equal((await page.goto('/admin/keys'))?.status(), 200, 'the backend is open again');
    const lines = await s.roost.audit.list({ action: 'impersonation.' });
    assert.deepEqual(
      lines.map((l) => [l.action, l.target, l.actorName]),
      [
        ['impersonation.end', 'carol', 'admin'],
        ['impersonation.start', 'carol', 'admin'],
      ],
    );
  });

  test('an administrator cannot be impersonated', async () => {
    const root2 = (await s.users('getUser', { identity: 'root2' }, { token: await s.adminToken() })).body.id;
    const shown = await page.goto(`/admin/users/${root2}/impersonate`);
    assert.equal(shown?.status(), 200, await page.locator('body').innerText());
    await page.getByRole('button', { name: 'Act as root2' }).click();
    assert.match(await page.locator('main').innerText(), /An administrator cannot be impersonated/);
    assert.equal(await banner().count(), 0);
  });
});
