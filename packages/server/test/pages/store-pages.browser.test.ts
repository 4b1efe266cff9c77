import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { laptopAndPhonePages, launchBrowser, screenshot } from '../helpers/browser.js';
import { ds } from '../helpers/datastore.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * An administrator walks the data and file store pages in Debian's chromium: every page is
 * photographed on a laptop and on a phone (test-artifacts/pages/). Browser suites run in the
 * SQLite pass only: the pages call the same services the HTTP tests cover on both databases.
 */
const SUITE = 'pages';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;
const HOSTILE_KEY = `<script>alert("key")</script> 'q' ü 𝄞 ../x?y#z`;
const HOSTILE_FILE = `<img src=x onerror=alert(1)> "q" 'a' ü #?%.txt`;

describe('admin store pages in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let laptop: BrowserContext;
  let page: Page;
  let phonePage: Page;
  let admin: string;
  const dialogs: string[] = [];

  /** The laptop page as it is, and the same url on the phone. */
  async function shoot(name: string): Promise<void> {
    await screenshot(page, SUITE, `${name}-laptop`);
    await phonePage.goto(page.url());
    await screenshot(phonePage, SUITE, `${name}-phone`);
  }

  before(async () => {
    s = await startServer({ fileStores: { files: { maxFileBytes: 8 * 1024 * 1024 } } });
    admin = await s.adminToken();
    await s.createUser('alice');
    browser = await launchBrowser();
    // A page that ran script from a key or a file name would open a dialog.
    ({ laptop, page, phonePage } = await laptopAndPhonePages(browser, s.url, 'admin', PASSWORD, dialogs));
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('data store: a hostile key, page through 65 items, filter, edit, change owner, delete', async () => {
    const items = Array.from({ length: 64 }, (_, i) => ({
      key: `item-${String(i + 1).padStart(2, '0')}`,
      value: `value ${i + 1}`,
    }));
    assert.equal((await ds(s, 'newItem', { items }, { token: admin })).body.result, 64);

    await page.goto('/admin/data');
    await shoot('data-stores');
    await page.getByRole('link', { name: 'data', exact: true }).click();
    await page.getByRole('link', { name: 'New item' }).click();
    await shoot('data-new-item');
    await page.fill('#new-item-key', HOSTILE_KEY);
    await page.fill('#new-item-value', 'first <b>value</b>');
    await page.click('#new-itemcreate\\$');
    await page.waitForURL(/\/admin\/data\/data\/items\/\d+$/);
    assert.match(await page.locator('.messages').innerText(), /created/);
    assert.equal(await page.locator('code.key').first().innerText(), HOSTILE_KEY);
    await shoot('data-item');

    // Page through: 65 items, 20 a page, in key order.
    await page.goto('/admin/data/data');
    await shoot('data-items');
    const seen: string[] = [];
    for (let n = 0; n < 10; n++) {
      seen.push(...(await page.locator('table tbody tr td[data-label="Key"] a').allInnerTexts()));
      const next = page.getByRole('link', { name: 'Next →' }).first();
      if ((await next.count()) === 0) break;
      await next.click();
    }
    assert.equal(seen.length, 65);
    assert.equal(new Set(seen).size, 65);
    assert.deepEqual(seen, [...seen].sort());
    assert.ok(seen.includes(HOSTILE_KEY));

    // Filter by key prefix, then sort descending by the Key header (twice: ascending, descending).
    await page.goto('/admin/data/data');
    await page.locator('details.card summary').click();
    await page.fill('#filter-prefix', 'item-6');
    await page.click('#filterfilter\\$');
    await page.getByRole('link', { name: 'Key', exact: true }).click();
    await page.getByRole('link', { name: 'Key ▲' }).click();
    assert.deepEqual(await page.locator('table tbody tr td[data-label="Key"] a').allInnerTexts(), [
      'item-64',
      'item-63',
      'item-62',
      'item-61',
      'item-60',
    ]);
    await shoot('data-items-filtered');

    // Edit the value (as a number), then give the item to alice.
    await page.getByRole('link', { name: 'item-62' }).click();
    await page.fill('#value-form-value', '  42 ');
    await page.check('#value-form-type-1');
    await page.click('#value-formsave\\$');
    assert.match(await page.locator('.messages').innerText(), /saved/);
    const stored = await ds(s, 'getItem', { key: 'item-62' }, { token: admin });
    assert.equal(stored.body.value, 42);
    await page.fill('#owner-form-owner', 'alice');
    await page.click('#owner-formgive\\$');
    assert.match(await page.locator('.messages').innerText(), /now belongs to alice/);
    assert.equal((await ds(s, 'getOwner', { key: 'item-62' }, { token: admin })).body.owner, 'alice');
    await shoot('data-item-edited');

    // Delete, after the question.
    await page.getByRole('link', { name: 'Delete this item…' }).click();
    await shoot('data-item-delete');
    await page.click('#delete-formremove\\$');
    await page.waitForURL(/\/admin\/data\/data$/);
    assert.match(await page.locator('.messages').innerText(), /deleted/);
    assert.equal((await ds(s, 'getItem', { key: 'item-62' }, { token: admin })).status, 404);
    assert.deepEqual(dialogs, []);
  });

  test('file store: directory, upload with a moving progress bar, download, move, delete recursively', async () => {
    await page.goto('/admin/files');
    await shoot('file-stores');
    await page.getByRole('link', { name: 'files', exact: true }).click();
    await page.fill('#mkdir-form-dirname', 'docs');
    await page.click('#mkdir-formmkdir\\$');
    assert.match(await page.locator('.messages').innerText(), /Directory “docs” created/);
    await page.getByRole('link', { name: 'docs', exact: true }).click();
    await page.waitForURL(/\/admin\/files\/files\/docs\/$/);

    // 2 MB at 512 KiB/s upload, by tus (admin/upload-script.ts): the bar moves. Four seconds, so that the
    // samples below, taken after a screenshot that can last a second or two on a busy machine, still
    // see it move (at 1 MiB/s a loaded run began sampling at 89 %).
    const bytes = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) % 251;
    const cdp = await laptop.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 512 * 1024,
    });
    await page.setInputFiles('#upload-form-file', {
      name: 'data.bin',
      mimeType: 'application/octet-stream',
      buffer: bytes,
    });
    await page.click('#upload-formupload\\$');
    const bar = page.getByRole('progressbar', { name: 'Upload of “data.bin”' });
    await bar.waitFor({ state: 'visible' });
    await screenshot(page, SUITE, 'file-upload-progress-laptop');
    const values: number[] = [];
    for (let i = 0; i < 60 && values.at(-1) !== 100; i++) {
      // Sampled while the bar shows: once the upload is done it hides.
      const now = await bar
        .evaluate((el) => (el.closest('[hidden]') ? null : (el as HTMLProgressElement).value), undefined, {
          timeout: 1000,
        })
        .catch(() => null);
      if (now === null) break;
      values.push(now);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(new Set(values).size >= 3, `the bar moved through ${JSON.stringify(values)}`);
    assert.deepEqual(
      values,
      [...values].sort((a, b) => a - b),
    );
    await page.getByRole('status').filter({ hasText: 'Uploaded “data.bin” (2.0 MB).' }).waitFor();
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    // The directory's table is a live region (admin/live-script.ts): the entry comes without a reload.
    await page.locator('td a[download]').first().waitFor({ timeout: 15_000 });
    await shoot('file-directory');

    // Download through the link: the same bytes.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('td a[download]').first().click(),
    ]);
    assert.ok((await readFile((await download.path()) as string)).equals(bytes));

    // A hostile name, uploaded without the progress bar (no script needed for this check), shows
    // as text and links right.
    await page.setInputFiles('#upload-form-file', {
      name: 'x.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('hostile'),
    });
    await page.fill('#upload-form-name', HOSTILE_FILE);
    await page.click('#upload-formupload\\$');
    await page.getByRole('link', { name: HOSTILE_FILE }).click();
    await page.waitForURL(/\/admin\/files\/files\/docs\/%3Cimg/);
    assert.equal(await page.locator('dl.facts dd').first().innerText(), HOSTILE_FILE);
    await shoot('file-entry');

    // Move the file to the root under a new name, then look at it there.
    await page.fill('#move-form-newpath', '/moved.txt');
    await page.click('#move-formmove\\$');
    await page.waitForURL(/\/admin\/files\/files\/moved\.txt$/);
    assert.equal((await s.request('/files/moved.txt', undefined, { token: admin })).body, 'hostile');

    // A nested tree, deleted with its directory after the question.
    await s.request('/files/docs/@newItem', { name: 'inner', type: 'd' }, { token: admin });
    await s.request('/files/docs/inner/deep.txt/@write', undefined, { token: admin, method: 'PUT', raw: 'deep' });
    await page.goto('/admin/files/files/docs/');
    await page.getByRole('link', { name: 'Delete this directory and everything in it…' }).click();
    await shoot('file-directory-delete');
    await page.click('#delete-formremove\\$');
    await page.waitForURL(/\/admin\/files\/files\/?$/);
    assert.match(await page.locator('.messages').innerText(), /Deleted \/docs \(4 entries\)/);
    assert.equal((await s.request('/files/docs/@getItem', undefined, { token: admin })).status, 404);
    assert.deepEqual(dialogs, []);
  });

  test('the item list and a directory follow changes made elsewhere, without a reload of the page', async () => {
    await page.goto('/admin/data/data?prefix=live-');
    await page.waitForSelector('html[data-live="open"]');
    const region = page.locator('[data-live-topic="items/data"]');
    assert.match(await region.innerText(), /No item matches the filter/);
    const typed = page.locator('#filter-owner');
    await typed.fill('kept while the list changes');
    await ds(s, 'newItem', { key: 'live-1', value: 'one' }, { token: admin });
    await region.getByRole('link', { name: 'live-1' }).waitFor();
    await ds(s, 'removeItem', { key: 'live-1' }, { token: admin });
    await region.getByText('No item matches the filter').waitFor();
    assert.equal(await typed.inputValue(), 'kept while the list changes');

    await page.goto('/admin/files/files/');
    await page.waitForSelector('html[data-live="open"]');
    await s.request('/files/api/@newItem', { name: 'live.txt', type: 'f', contents: 'x' }, { token: admin });
    await page.locator('[data-live-topic="files/files"]').getByRole('link', { name: 'live.txt' }).waitFor();
    assert.deepEqual(dialogs, []);
  });
});
