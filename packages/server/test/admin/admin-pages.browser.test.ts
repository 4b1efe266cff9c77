import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Clock } from '../../src/core/clock.js';
import { launchBrowser, screenshot, VIEWPORTS } from '../helpers/browser.js';
import { PASSWORD, startServer, tokenFromMail, type TestServer } from '../helpers/test-server.js';

/**
 * An administrator walks every management page in Debian's chromium: signs in, reviews a
 * sign-up from the mail to the active account, disables, reactivates and removes accounts,
 * changes a permission and a setting and sees the API follow, sends a test mail, runs each tool.
 * Every page is photographed on a laptop and a phone (test-artifacts/admin/). Browser suites run
 * in the SQLite pass only: the pages call the services the HTTP tests (admin-access,
 * admin-input, settings-store) cover on both databases.
 */
const SUITE = 'admin';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

/** A clock the test moves forward (expired tokens for the purge tool). */
function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

describe('admin pages in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let laptop: BrowserContext;
  let page: Page;
  let adminToken: string;
  const clock = movableClock();
  const dialogs: string[] = [];
  const api = (op: string, body: unknown = {}, token?: string) => s.users(op, body, token ? { token } : {});

  before(async () => {
    s = await startServer({}, { clock });
    adminToken = await s.adminToken();
    await s.createUser('bob', { groups: ['editors'] });
    await s.createUser('erin');
    // A real name a spreadsheet would run as a formula, with a comma and quotes.
    await api(
      'setUser',
      { identity: 'erin', values: { realname: '=HYPERLINK("https://evil.example","x"), Erin' } },
      adminToken,
    );
    browser = await launchBrowser();
    laptop = await browser.newContext({ baseURL: s.url, viewport: VIEWPORTS.laptop });
    page = await laptop.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const flashed = () => page.locator('main .messages').innerText();

  test('sign in through the page: the sign-in form, then the overview', async () => {
    await page.goto('/admin/users');
    await page.waitForURL(/\/admin\/signin\?next=%2Fadmin%2Fusers$/);
    await page.fill('#signin-identity', 'admin');
    await page.fill('#signin-password', 'wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await page.locator('[role=alert]').first().innerText(), /Wrong identity or password/);
    await page.fill('#signin-password', PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/admin\/users$/);
    await page.goto('/admin');
    const tiles = await page.locator('.tile').allInnerTexts();
    assert.deepEqual(
      tiles.map((t) => t.replace(/\s+/g, ' ').trim()),
      ['3 accounts', '0 sign-ups wait for review', '0 disabled accounts', '1 data store', '1 file store'],
    );
    // The server at a glance, and the latest sign-ups, newest first.
    const server = await page.locator('.dashboard section', { hasText: 'Server' }).innerText();
    assert.match(server, /Version\s+0\.1\.0/);
    assert.match(server, /Running for\s+\d+ (s|min)/);
    assert.match(server, /Database\s+SQLite, .*roost\.db: [\d.]+ (kB|MB)/);
    assert.match(server, /File stores\s+0 files, 0 B in the directory /);
    assert.deepEqual((await page.locator('.dashboard table tbody tr td:first-child').allInnerTexts()).sort(), [
      'admin',
      'bob',
      'erin',
    ]);
  });

  test('a pending sign-up reviewed on the page, from the mail to an active account (script on and off)', async () => {
    await s.grant('signupReview', ['sys:everyone']);
    for (const name of ['carol', 'dave'])
      assert.deepEqual((await api('signupReview', { name, email: `${name}@example.com`, password: PASSWORD })).body, {
        result: true,
      });
    assert.equal(
      (await api('token', { identity: 'carol', password: PASSWORD })).status,
      401,
      'pending: no sign-in yet',
    );

    await page.goto('/admin/signups');
    assert.deepEqual(await page.locator('table tbody tr td:first-child').allInnerTexts(), ['carol', 'dave']);
    await screenshot(page, SUITE, 'signups-laptop');
    // With the script: the decision replaces its form, the page stays.
    const carolRow = page.locator('tr', { hasText: 'carol@example.com' });
    await carolRow.locator('select').selectOption('optin');
    await carolRow.getByRole('button', { name: 'Decide' }).click();
    await assert.doesNotReject(carolRow.locator('[role=status]').waitFor());
    assert.match(
      await carolRow.locator('[role=status]').innerText(),
      /carol was accepted; the account is active once the mailed link is used/,
    );
    assert.ok(page.url().endsWith('/admin/signups'));
    // With the script too, a rejection goes to its confirmation page (not into the row).
    const daveRow = page.locator('tr', { hasText: 'dave@example.com' });
    await daveRow.locator('select').selectOption('reject');
    await daveRow.getByRole('button', { name: 'Decide' }).click();
    await page.waitForURL(/\/admin\/signups\/[0-9a-f-]{36}\/reject$/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(/\/admin\/signups\/[0-9a-f-]{36}$/);

    // The mail, its link's token, and the account active.
    const mail = await s.lastMail('carol@example.com');
    assert.equal(mail.kind, 'activation');
    assert.deepEqual((await api('activate', { token: tokenFromMail(mail) })).body, { result: true });
    assert.equal((await api('token', { identity: 'carol', password: PASSWORD })).status, 200);

    // Without the script: the review page of one sign-up, then the list with the result on top.
    const noScript = await browser.newContext({ baseURL: s.url, viewport: VIEWPORTS.laptop, javaScriptEnabled: false });
    await noScript.addCookies(await laptop.cookies());
    const plain = await noScript.newPage();
    await plain.goto('/admin/signups');
    await plain.getByRole('link', { name: 'dave' }).click();
    await screenshot(plain, SUITE, 'signup-review-laptop');
    // Rejecting removes the account, so it asks first: cancelled, dave still waits.
    await plain.locator('select').selectOption('reject');
    await plain.getByRole('button', { name: 'Decide' }).click();
    await plain.waitForURL(/\/admin\/signups\/[0-9a-f-]{36}\/reject$/);
    assert.match(await plain.locator('main').innerText(), /Reject the sign-up of dave/);
    await screenshot(plain, SUITE, 'signup-reject-laptop');
    await plain.getByRole('button', { name: 'Cancel' }).click();
    await plain.waitForURL(/\/admin\/signups\/[0-9a-f-]{36}$/);
    await plain.locator('select').selectOption('reject');
    await plain.getByRole('button', { name: 'Decide' }).click();
    await plain.getByRole('button', { name: 'Reject and remove' }).click();
    await plain.waitForURL(/\/admin\/signups$/);
    assert.match(await plain.locator('main .messages').innerText(), /dave was rejected and removed/);
    assert.match(await plain.locator('main').innerText(), /No sign-up is waiting/);
    await noScript.close();
    assert.equal((await api('getUser', { identity: 'dave' }, adminToken)).status, 404);
  });

  test('disable, reactivate and edit a user; remove one after the confirmation', async () => {
    const bobToken = (await api('token', { identity: 'bob', password: PASSWORD })).body.token as string;
    await page.goto('/admin/users');
    await screenshot(page, SUITE, 'users-laptop');
    await page.fill('#search-search', 'bo');
    await page.getByRole('button', { name: 'Search' }).click();
    assert.deepEqual(await page.locator('table tbody tr td[data-label="Name"]').allInnerTexts(), ['bob']);
    await page.getByRole('link', { name: 'bob', exact: true }).click();
    await page.waitForURL(/\/admin\/users\/[0-9a-f-]{36}$/);
    await screenshot(page, SUITE, 'user-edit-laptop');

    await page.uncheck('#user-active');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match(await flashed(), /Data saved/);
    assert.match(await page.locator('.facts').innerText(), /disabled/);
    assert.equal((await s.request('/users/api/profile', undefined, { token: bobToken })).status, 401, 'signed out');
    assert.equal(
      (await api('token', { identity: 'bob', password: PASSWORD })).status,
      401,
      'no sign-in while disabled',
    );

    await page.check('#user-active');
    await page.fill('#user-realname', 'Bob Builder');
    await page.fill('#user-groups', 'editors\nreviewers');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match(await flashed(), /Data saved/);
    const bob = await api('getUser', { identity: 'bob' }, adminToken);
    assert.deepEqual(
      [bob.body.active, bob.body.realname, bob.body.groups],
      [true, 'Bob Builder', ['editors', 'reviewers']],
    );
    assert.equal((await api('token', { identity: 'bob', password: PASSWORD })).status, 200, 'reactivated');

    // The list filters by state; the removal asks first.
    await page.goto('/admin/users?state=active');
    await page.locator('tr', { hasText: 'erin@example.com' }).getByRole('link', { name: 'Remove' }).click();
    await screenshot(page, SUITE, 'user-remove-laptop');
    await page.getByRole('button', { name: 'Remove for good' }).click();
    await page.waitForURL(/\/admin\/users$/);
    assert.match(await flashed(), /The account erin was removed/);
    assert.equal((await api('getUser', { identity: 'erin' }, adminToken)).status, 404);
  });

  test('account recovery: create an account, set its password, send it the reset mail', async () => {
    await page.goto('/admin/users');
    await page.getByRole('link', { name: 'New account' }).click();
    await page.waitForURL(/\/admin\/users\/new$/);
    // The rules of the API and the CLI, said at the fields.
    await page.fill('#newuser-name', 'x');
    await page.fill('#newuser-email', 'dora@example.com');
    await page.fill('#newuser-password', 'short');
    await page.fill('#newuser-password-confirm', 'short');
    await page.fill('#newuser-groups', 'editors\nsys:owner');
    await page.getByRole('button', { name: 'Create the account' }).click();
    // The browser holds a password shorter than the minimum (its minlength) before the server.
    const tooShort = () => page.$eval('#newuser-password', (el) => (el as HTMLInputElement).validity.tooShort);
    assert.equal(await tooShort(), true);
    assert.match(page.url(), /\/admin\/users\/new$/);
    await page.fill('#newuser-password', 'dora-password-1');
    await page.fill('#newuser-password-confirm', 'dora-password-1');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.waitForSelector('#item-groups .invalid-feedback');
    assert.match(await page.locator('#item-groups').innerText(), /not a group name/);
    assert.equal((await api('getUser', { identity: 'dora@example.com' }, adminToken)).status, 404, 'nothing made');

    await page.fill('#newuser-name', 'dora');
    await page.fill('#newuser-password', 'dora-password-1');
    await page.fill('#newuser-password-confirm', 'dora-password-1');
    await page.fill('#newuser-groups', 'editors');
    await screenshot(page, SUITE, 'user-new-laptop');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.waitForURL(/\/admin\/users\/[0-9a-f-]{36}$/);
    assert.match(await flashed(), /The account dora was created/);
    assert.equal((await api('token', { identity: 'dora', password: 'dora-password-1' })).status, 200);
    const doraToken = (await api('token', { identity: 'dora', password: 'dora-password-1' })).body.token as string;
    assert.deepEqual((await api('getUser', { identity: 'dora' }, adminToken)).body.groups, ['editors']);

    await page.getByRole('link', { name: 'Set a password' }).click();
    await page.fill('#password-password', 'dora-password-2');
    await page.fill('#password-password-confirm', 'dora-password-2');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.waitForURL(/\/admin\/users\/[0-9a-f-]{36}$/);
    assert.match(await flashed(), /The password of dora was set/);
    assert.equal(
      (await api('token', { identity: 'dora', password: 'dora-password-1' })).status,
      401,
      'the old password is gone',
    );
    assert.equal(
      (await s.request('/users/api/profile', undefined, { token: doraToken })).status,
      401,
      'its sessions ended',
    );
    assert.equal((await api('token', { identity: 'dora', password: 'dora-password-2' })).status, 200);

    await page.getByRole('link', { name: 'Send a password-reset mail' }).click();
    await page.getByRole('button', { name: 'Send the reset mail' }).click();
    await page.waitForURL(/\/admin\/users\/[0-9a-f-]{36}$/);
    assert.match(await flashed(), /A password-reset mail to dora@example\.com is queued/);
    const mail = await s.lastMail('dora@example.com');
    assert.match(mail.text, /reset-password/);
    // The suites after this one count the accounts.
    assert.equal((await api('removeUser', { identity: 'dora' }, adminToken)).status, 200);
  });

  test('a permission changed on the page: the API follows at once', async () => {
    const bobToken = (await api('token', { identity: 'bob', password: PASSWORD })).body.token as string;
    const newItem = (key: string, token: string) => s.request('/data/api/newItem', { key, value: 'v' }, { token });
    assert.equal((await newItem('one', bobToken)).status, 200);

    await page.goto('/admin/permissions');
    await screenshot(page, SUITE, 'permissions-laptop');
    await page.getByRole('link', { name: 'data', exact: true }).click();
    await screenshot(page, SUITE, 'permissions-data-laptop');
    const entry = page.locator('.roost-sequence li', { hasText: 'newItem:' });
    assert.equal(await entry.locator('span').innerText(), 'newItem: sys:authenticated');
    await entry.getByRole('link', { name: 'Edit' }).click();
    await page.fill('#permission-groups', 'admins');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match(await flashed(), /Entry saved/);
    assert.equal((await newItem('two', bobToken)).status, 403, 'bob may no longer create items');
    assert.equal((await newItem('two', adminToken)).status, 200);

    // Delete: nobody holds it; add it again for everyone signed in.
    await page
      .locator('.roost-sequence li', { hasText: 'newItem:' })
      .getByRole('button', { name: /Delete/ })
      .click();
    assert.match(await page.locator('main').innerText(), /Delete the entry newItem \(admins\) of data\?/);
    await screenshot(page, SUITE, 'permission-delete-laptop');
    await page.getByRole('button', { name: 'Delete the entry' }).click();
    assert.match(await flashed(), /nobody holds the permission/);
    assert.match(await page.locator('main').innerText(), /Granted to nobody: newItem/);
    assert.equal((await newItem('three', adminToken)).status, 403);
    await page.locator('#permission-permission').selectOption('newItem');
    await page.fill('#permission-groups', 'sys:authenticated');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match(await flashed(), /Entry saved/);
    assert.equal((await newItem('three', bobToken)).status, 200);
  });

  test('settings changed on the page: a sign-up and the identity policy apply at once; a test mail', async () => {
    const signupDirect = () => api('signupDirect', { name: 'frank', email: 'frank@example.com', password: PASSWORD });
    assert.equal((await signupDirect()).status, 403);
    await page.goto('/admin/settings');
    await screenshot(page, SUITE, 'settings-laptop');
    await page.locator('#settings-signupDirect [value=on]').check();
    await page.locator('#settings-identityPolicy [value=email]').check();
    await page.fill('#settings-adminAddress', 'ops@example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match(await flashed(), /Settings saved/);
    assert.deepEqual((await signupDirect()).body, { result: true });
    assert.equal(
      (await api('token', { identity: 'frank', password: PASSWORD })).status,
      401,
      'names no longer sign in',
    );
    assert.equal((await api('token', { identity: 'frank@example.com', password: PASSWORD })).status, 200);

    await page.getByRole('button', { name: 'Send test mail' }).click();
    assert.match(await flashed(), /A test mail to ops@example\.com went to the outbox/);
    const test = await s.lastMail('ops@example.com');
    assert.equal(test.subject, 'Roost test mail');

    await page.goto('/admin/outbox');
    await screenshot(page, SUITE, 'outbox-laptop');
    await page.locator('tr', { hasText: 'ops@example.com' }).getByRole('link', { name: 'Roost test mail' }).click();
    assert.match(await page.locator('.mail-text').innerText(), /This is a test mail from Roost/);
    await screenshot(page, SUITE, 'outbox-mail-laptop');

    // Back to names, so the rest of the walk signs in as before.
    await page.goto('/admin/settings');
    await page.locator('#settings-identityPolicy [value=either]').check();
    await page.getByRole('button', { name: 'Save' }).click();
    assert.equal((await api('token', { identity: 'frank', password: PASSWORD })).status, 200);
  });

  test('tools: the CSV download, and the purge of expired sessions and tokens', async () => {
    await page.goto('/admin/tools');
    await screenshot(page, SUITE, 'tools-laptop');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^roost-users-\d{4}-\d\d-\d\d\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines[0], 'id,name,email,realname,state,groups,notify,created,activity');
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(',')[1]),
      ['admin', 'bob', 'carol', 'frank'],
    );
    assert.match(csv, /,bob,bob@example\.com,Bob Builder,active,editors reviewers,false,/);

    // One account with a formula-like real name: shown as text, quoted, in the export.
    await api(
      'setUser',
      { identity: 'frank', values: { realname: '=HYPERLINK("https://evil.example","x"), Frank' } },
      adminToken,
    );
    await page.locator('#export-state').selectOption('active');
    await page.fill('#export-group', '');
    const [second] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const frank = (await readFile((await second.path())!, 'utf8')).split('\r\n').find((l) => l.includes(',frank,'));
    assert.ok(frank?.includes(`,"'=HYPERLINK(""https://evil.example"",""x""), Frank",`), frank);

    // Expired: a reset token (an hour) and a session, once the clock has moved on.
    await api('resetPassword', { identity: 'bob' });
    const shortSession = await api('token', { identity: 'carol', password: PASSWORD });
    assert.equal(shortSession.status, 200);
    clock.advance(2 * 3600_000);
    await s.roost.db
      .updateTable('sessions')
      .set({ expires: clock.now() - 1 })
      .where('user_id', '=', (await s.roost.users.findUser('carol'))!.id)
      .execute();
    const expired = async () => {
      const now = clock.now();
      const sessions = await s.roost.db
        .selectFrom('sessions')
        .select('token_hash')
        .where('expires', '<=', now)
        .execute();
      const tokens = await s.roost.db
        .selectFrom('user_tokens')
        .select('token_hash')
        .where('expires', '<=', now)
        .execute();
      return sessions.length + tokens.length;
    };
    const waiting = await expired();
    assert.ok(waiting >= 2, `expired rows: ${waiting}`);
    await page.reload();
    await page.getByRole('button', { name: 'Purge now' }).click();
    assert.match(
      await page.locator('.tool-output').innerText(),
      new RegExp(`Removed ${waiting} expired sessions and tokens`),
    );
    assert.equal(await expired(), 0);
  });

  test('every page on a laptop and a phone: screenshots, nothing wider than the screen, no script run', async () => {
    const bob = (await s.roost.users.findUser('bob'))!;
    await api('signupReview', { name: 'gina', email: 'gina@example.com', password: PASSWORD });
    const gina = (await s.roost.users.findUser('gina'))!;
    const mail = (await s.outbox()).at(-1)!;
    const pages: Array<[string, string]> = [
      ['overview', '/admin'],
      ['users', '/admin/users'],
      ['user-edit', `/admin/users/${bob.id}`],
      ['user-remove', `/admin/users/${bob.id}/remove`],
      ['signups', '/admin/signups'],
      ['signup-review', `/admin/signups/${gina.id}`],
      ['settings', '/admin/settings'],
      ['permissions', '/admin/permissions'],
      ['permissions-users', '/admin/permissions/users'],
      ['permissions-files', '/admin/permissions/files'],
      ['outbox', '/admin/outbox'],
      ['outbox-mail', `/admin/outbox/${mail.id}`],
      ['tools', '/admin/tools'],
    ];
    const phone = await browser.newContext({ baseURL: s.url, viewport: VIEWPORTS.phone });
    await phone.addCookies(await laptop.cookies());
    const phonePage = await phone.newPage();
    phonePage.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // Laptop photographs taken on the walk above are not taken again.
    const taken = new Set([
      'users',
      'user-edit',
      'user-remove',
      'signups',
      'settings',
      'permissions',
      'outbox',
      'outbox-mail',
      'tools',
    ]);
    for (const [name, path] of pages) {
      for (const [viewport, p] of [
        ['laptop', page],
        ['phone', phonePage],
      ] as const) {
        const res = await p.goto(path);
        assert.equal(res?.status(), 200, `${name} on the ${viewport}`);
        if (viewport === 'phone' || !taken.has(name)) await screenshot(p, SUITE, `${name}-${viewport}`);
        const width = await p.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= VIEWPORTS[viewport].width, `${name} is ${width}px wide on the ${viewport}`);
      }
    }
    // On a phone the sections fold into a menu.
    await phonePage.goto('/admin');
    assert.equal(await phonePage.locator('.site-nav').isVisible(), false);
    assert.equal(await phonePage.getByRole('link', { name: 'Permissions' }).isVisible(), false);
    await phonePage.locator('.site-menu summary').click();
    await screenshot(phonePage, SUITE, 'menu-phone');
    await phonePage.getByRole('link', { name: 'Permissions' }).click();
    await phonePage.waitForURL(/\/admin\/permissions$/);
    assert.equal(await page.locator('.site-menu').isVisible(), false, 'no menu on a laptop');
    // The sign-in pages, anonymous, and the user sign-in page signed in.
    const anonymous = await browser.newContext({ baseURL: s.url, viewport: VIEWPORTS.phone });
    const anonymousPage = await anonymous.newPage();
    for (const path of ['/admin/signin', '/users/signin']) {
      for (const viewport of ['laptop', 'phone'] as const) {
        await anonymousPage.setViewportSize(VIEWPORTS[viewport]);
        await anonymousPage.goto(path);
        await screenshot(anonymousPage, SUITE, `${path.slice(1).replace('/', '-')}-${viewport}`);
      }
    }
    await anonymousPage.fill('#signin-identity', 'bob');
    await anonymousPage.fill('#signin-password', PASSWORD);
    await anonymousPage.getByRole('button', { name: 'Sign in', exact: true }).click();
    assert.match(await anonymousPage.locator('main').innerText(), /You are signed in as bob/);
    await screenshot(anonymousPage, SUITE, 'users-signed-in-phone');
    // Every public page's header shows who is signed in, with the way out, not the sign-in link.
    await anonymousPage.goto('/users/signup');
    assert.equal(await anonymousPage.locator('header .signout').count(), 1);
    assert.equal(await anonymousPage.locator('header a', { hasText: 'Sign in' }).count(), 0);
    await anonymousPage.setViewportSize(VIEWPORTS.laptop);
    assert.match(await anonymousPage.locator('header').innerText(), /bob/);
    await anonymousPage.goto('/users/signin');
    await anonymousPage.locator('main').getByRole('button', { name: 'Sign out' }).click();
    assert.match(await anonymousPage.locator('main').innerText(), /You are signed out/);
    await anonymous.close();
    await phone.close();
    assert.deepEqual(dialogs, []);
  });

  test('sign out from the header', async () => {
    await page.goto('/admin');
    await page.locator('header').getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/admin\/signin\?signedout=1$/);
    assert.match(await page.locator('main').innerText(), /You are signed out/);
    await page.goto('/admin/users');
    await page.waitForURL(/\/admin\/signin/);
  });
});
