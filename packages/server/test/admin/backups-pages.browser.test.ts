import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot, signedInContext, VIEWPORTS } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The backups page (admin/pages/backups-pages.ts; docs/admin.md, "Backups") in chromium, at
 * laptop and phone sizes: a backup started with *Back up now*, followed by the page (which
 * reloads itself while a run runs) until it is done; its restore page naming what would be
 * replaced; deleted after a confirmation. SQLite pass only, as every browser suite:
 * test/http/backups.test.ts covers the backups on both databases and S3.
 */
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('the backups page in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;

  before(async () => {
    s = await startServer();
    await s.adminToken();
    const alice = await s.createUser('alice');
    for (let i = 0; i < 20; i++) await s.request('/data/api/setItem', { key: `k${i}`, value: i }, { token: alice });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  async function open(viewport: (typeof VIEWPORTS)[keyof typeof VIEWPORTS]): Promise<Page> {
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD, { viewport });
    return context.newPage();
  }

  test('back up now, watched to the end; its restore page names what it replaces; deleted', async () => {
    const page = await open(VIEWPORTS.laptop);
    await page.goto('/admin/backups');
    await page.getByRole('link', { name: 'Backups', exact: true }).first().waitFor();
    assert.match(await page.locator('main').innerText(), /No backup yet\./);
    await page.getByRole('button', { name: 'Back up now' }).click();
    await page.waitForURL(/\/admin\/backups$/);
    assert.match(await page.locator('main').innerText(), /The backup runs now\./);
    // The page follows the run by itself (it reloads while one runs); nobody reloads it here.
    const archive = page.getByRole('link', { name: /^roost-backup-.*-manual-[0-9a-f]{6}\.tar\.gz$/ });
    await archive.waitFor({ timeout: 20_000 });
    const runs = page.locator('#backup-runs');
    await runs.getByText('done').waitFor({ timeout: 20_000 });
    assert.match(await runs.innerText(), /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\s+manual backup/);
    const name = (await archive.innerText()).trim();
    await screenshot(page, 'admin', 'backups-laptop');

    await page.getByRole('link', { name: 'Restore…' }).click();
    await page.waitForURL(/\/restore$/);
    const restore = await page.locator('main').innerText();
    assert.match(restore, /Users\s+2\s+2/);
    assert.match(restore, /Data store items\s+20\s+20/);
    assert.match(restore, new RegExp(`roost restore ${name.replace(/\./g, '\\.')}`));
    await page.getByRole('link', { name: '← All backups' }).click();

    await page.getByRole('link', { name: 'Delete…' }).click();
    assert.match(await page.locator('main').innerText(), new RegExp(`Delete ${name.replace(/\./g, '\\.')}`));
    await page.getByRole('button', { name: 'Delete this backup' }).click();
    await page.waitForURL(/\/admin\/backups$/);
    assert.match(await page.locator('main').innerText(), new RegExp(`Deleted ${name.replace(/\./g, '\\.')}\\.`));
    assert.deepEqual(await readdir(join(s.roost.config.dataDir, 'backups')), []);
  });

  test('at phone size: the archives fold into labelled blocks, the restore check runs from its button', async () => {
    await s.roost.backups.make('scheduled');
    const page = await open(VIEWPORTS.phone);
    await page.goto('/admin/backups');
    await page.getByRole('button', { name: 'Check the newest backup now' }).click();
    await page.waitForURL(/\/admin\/backups$/);
    await page
      .locator('#backup-runs')
      .getByText(/passed: every table restored/)
      .waitFor({ timeout: 20_000 });
    const kind = page.locator('td[data-label="Kind"]', { hasText: 'scheduled' });
    assert.ok(await kind.isVisible());
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= VIEWPORTS.phone.width, `no sideways scrolling: ${width} px`);
    await screenshot(page, 'admin', 'backups-phone');
  });
});
