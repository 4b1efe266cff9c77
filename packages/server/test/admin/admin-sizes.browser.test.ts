import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ds } from '../helpers/datastore.js';
import { axeViolations, launchBrowser, screenshot, signedInContext, VIEWPORTS } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Issue 42, item 6: the main admin pages and the public account page in Debian's chromium at a
 * phone's size (390×844) and a laptop's (1366×768), in the light and the dark scheme
 * (`prefers-color-scheme`, admin/stylesheet.ts): nothing overflows the page sideways (a wide
 * table scrolls in its own box), the navigation works on the phone, and axe-core finds no
 * violation of WCAG 2.1 A and AA (contrast included) in either scheme. Then the bulk delete,
 * with the script (select all, the count) and without one: boxes, the counting question, the report. Screenshots in
 * test-artifacts/admin-sizes/. Browser suites run in the SQLite pass only.
 */
const SUITE = 'admin-sizes';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

type Scheme = 'light' | 'dark';
type Size = keyof typeof VIEWPORTS;

/** How far the page is wider than the window (0: nothing overflows sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('admin pages at phone and laptop sizes, light and dark', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    s = await startServer();
    const token = await s.adminToken();
    await s.createUser('bob', { groups: ['editors'], email: 'bob@example.com' });
    // A long unbroken value and key: the tables must wrap or scroll them, not the page.
    for (let i = 0; i < 8; i++)
      await ds(s, 'setItem', { key: `item-${i}`, value: `value-${'x'.repeat(i * 30)}` }, { token });
    await ds(s, 'setItem', { key: `long-${'k'.repeat(150)}`, value: 'y'.repeat(400) }, { token });
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, done: { type: 'boolean' }, notes: { type: 'string' } },
    };
    const rules = { list: '', view: '', create: '', update: '', delete: '' };
    assert.equal((await s.request('/api/collections', { name: 'tasks', schema, rules }, { token })).status, 201);
    for (let i = 0; i < 3; i++)
      await s.request(
        '/api/collections/tasks/records',
        { title: `Task ${i}`, done: i === 1, notes: 'n'.repeat(200) },
        { token },
      );
    browser = await launchBrowser();
  });
  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await s?.close();
  });

  async function open(size: Size, scheme: Scheme): Promise<Page> {
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD, {
      viewport: VIEWPORTS[size],
      colorScheme: scheme,
      bypassCSP: true,
    });
    contexts.push(context);
    return context.newPage();
  }

  const PAGES = [
    ['dashboard', '/admin'],
    ['users', '/admin/users?sort=-created'],
    ['data-items', '/admin/data/data'],
    ['files', '/admin/files/files/'],
    ['records', '/admin/collections/tasks'],
    ['settings', '/admin/settings'],
    ['permissions', '/admin/permissions'],
    ['account', '/users/account'],
  ] as const;

  for (const size of ['phone', 'laptop'] as const)
    for (const scheme of ['light', 'dark'] as const)
      test(`${size}, ${scheme}: no sideways overflow, axe clean on every main page`, async () => {
        const page = await open(size, scheme);
        const problems: string[] = [];
        for (const [name, path] of PAGES) {
          const res = await page.goto(path);
          assert.equal(res?.status(), 200, path);
          const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
          assert.equal(background, scheme === 'dark' ? 'rgb(20, 23, 29)' : 'rgb(246, 247, 250)', `${path}: scheme`);
          const wider = await overflow(page);
          if (wider > 0) problems.push(`${path}: ${wider}px wider than the window`);
          for (const v of await axeViolations(page)) problems.push(`${path}: ${v}`);
          await screenshot(page, SUITE, `${name}-${size}-${scheme}`);
        }
        assert.deepEqual(problems, []);
      });

  test('phone: the menu leads to every section; a wide table scrolls in its own box on a laptop', async () => {
    const phone = await open('phone', 'light');
    await phone.goto('/admin');
    assert.equal(await phone.locator('.site-nav').isVisible(), false, 'the long list is folded');
    await phone.locator('.site-menu summary').click();
    await phone.locator('.site-menu').getByRole('link', { name: 'Data stores' }).click();
    await phone.waitForURL(/\/admin\/data$/);
    await phone.getByRole('link', { name: 'data', exact: true }).click();
    await phone.waitForURL(/\/admin\/data\/data$/);
    // The sort links stay on a phone, as a row above the rows.
    await phone.getByRole('link', { name: 'Changed', exact: true }).click();
    await phone.waitForURL(/\/admin\/data\/data\?sort=timestamp$/);
    assert.equal(await overflow(phone), 0);
    await screenshot(phone, SUITE, 'data-items-sorted-phone');
    // On a phone the rows fold into labelled blocks (each cell with its column's name), no header row.
    assert.equal(await phone.locator('thead th', { hasText: 'Owner' }).isVisible(), false, 'no unsortable header');
    const label = await phone
      .locator('td[data-label="Key"]')
      .first()
      .evaluate((td) => getComputedStyle(td, '::before').content);
    assert.equal(label, '"Key: "', 'the label before the cell');

    const laptop = await open('laptop', 'dark');
    await laptop.setViewportSize({ width: 700, height: 768 });
    await laptop.goto('/admin/collections/tasks');
    const box = await laptop.evaluate(() => {
      const scroller = document.querySelector('.table-scroll');
      return scroller ? { inner: scroller.scrollWidth, outer: scroller.clientWidth } : null;
    });
    assert.ok(box, 'the records table is in its scroll box');
    assert.equal(await overflow(laptop), 0, 'the page itself does not scroll sideways');
  });

  test('with the script: select all, the count on the button, disabled while none is checked', async () => {
    const page = await open('laptop', 'dark');
    await page.goto('/admin/data/data');
    const button = page.getByRole('button', { name: /Delete the selected items/ });
    assert.equal(await button.isDisabled(), true);
    const rows = await page.locator('tbody tr').count();
    await page.getByRole('checkbox', { name: 'Select all rows of this page' }).check();
    assert.equal(await button.innerText(), `Delete the selected items (${rows})…`);
    await page.getByRole('checkbox', { name: 'Select item-0' }).uncheck();
    assert.equal(await button.innerText(), `Delete the selected items (${rows - 1})…`);
    assert.equal(
      await page.getByRole('checkbox', { name: 'Select all rows of this page' }).evaluate((b) => {
        const box = b as HTMLInputElement;
        return [box.checked, box.indeterminate].join();
      }),
      'false,true',
    );
    await button.click();
    await page.waitForURL(/\/admin\/data\/data\/delete$/);
    assert.equal(await page.getByRole('heading', { name: `Delete ${rows - 1} items?` }).count(), 1);
    assert.deepEqual(await axeViolations(page), []);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(/\/admin\/data\/data$/);
    assert.equal(await page.locator('tbody tr').count(), rows, 'nothing deleted');
  });

  test('bulk delete without a script: check, the counting question, the report', async () => {
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD, {
      viewport: VIEWPORTS.phone,
      javaScriptEnabled: false,
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto('/admin/data/data?sort=-key');
    await page.getByRole('checkbox', { name: 'Select item-7' }).check();
    await page.getByRole('checkbox', { name: 'Select item-6' }).check();
    await page.getByRole('button', { name: 'Delete the selected items…' }).click();
    await page.waitForURL(/\/admin\/data\/data\/delete$/);
    assert.equal(await page.getByRole('heading', { name: 'Delete 2 items?' }).count(), 1);
    assert.match(await page.locator('.card.confirm').innerText(), /item-7\s+item-6/);
    assert.equal(await overflow(page), 0);
    await screenshot(page, SUITE, 'bulk-delete-question-phone');
    await page.getByRole('button', { name: 'Delete 2 items' }).click();
    await page.waitForURL(/\/admin\/data\/data$/);
    assert.match(await page.locator('.messages').innerText(), /2 items deleted\./);
    const token = await s.adminToken();
    const keys = (await ds(s, 'keys', {}, { token })).body.keys as string[];
    assert.ok(!keys.includes('item-7') && !keys.includes('item-6') && keys.includes('item-5'));
  });
});
