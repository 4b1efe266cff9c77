import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot, signedInContext, VIEWPORTS } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { programCaller } from '../../src/users/index.js';

/**
 * The logs page (admin/pages/logs-pages.ts; docs/admin.md, "Logs") in chromium, at laptop and
 * phone sizes: the recent requests listed, filtered by status and route from the form, and a
 * request's page reached from its row, with what it caused (a webhook delivery, followed to its job
 * and back). SQLite pass only, as every browser suite:
 * test/http/request-log.test.ts covers the records on both databases.
 */
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('the logs page in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let missingId: string;
  let writeId: string;
  let hook: Awaited<ReturnType<typeof receiver>>;

  before(async () => {
    s = await startServer({ requestLog: { keep: true } });
    hook = await receiver();
    const token = await s.adminToken();
    const missing = await fetch(`${s.url}/data/api/getItem?key=not-there`, { headers: { 'x-auth-token': token } });
    missingId = String(missing.headers.get('x-request-id'));
    await fetch(`${s.url}/users/api/ping`);
    // A write that a webhook follows: its delivery is what the request caused.
    await s.roost.webhooks.add(programCaller('test').principal, { url: hook.url, service: 'data', kinds: [] });
    const written = await s.request('/data/api/newItem', { key: 'told', value: 1 }, { token });
    writeId = String(written.headers.get('x-request-id'));
    await s.roost.webhooks.idle();
    await s.roost.requestRecords?.flush();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await hook?.close();
  });

  async function open(viewport: keyof typeof VIEWPORTS): Promise<Page> {
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD, { viewport: VIEWPORTS[viewport] });
    const page = await context.newPage();
    await page.goto('/admin/logs');
    return page;
  }

  test('the requests are listed, filtered from the form, and each opens its story', async () => {
    const page = await open('laptop');
    const rows = page.locator('table tbody tr');
    assert.ok((await rows.count()) >= 2);
    await screenshot(page, 'admin', 'logs-laptop');
    await page.getByLabel('Status').fill('4xx');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/status=4xx/);
    const failed = await page.locator('table tbody').innerText();
    assert.match(failed, /\/data\/api\/getItem\s+404\s+item_not_found/);
    assert.doesNotMatch(failed, /\/users\/api\/ping/);
    await page.getByLabel('Route').fill('/users/api/ping');
    await page.getByLabel('Status').fill('');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/route=/);
    assert.doesNotMatch(await page.locator('table tbody').innerText(), /getItem/);

    await page.goto('/admin/logs?status=404');
    await page.locator('tr', { hasText: 'item_not_found' }).first().getByRole('link').first().click();
    await page.waitForURL(new RegExp(`/admin/logs/${missingId}$`));
    const story = await page.locator('main').innerText();
    assert.match(story, /GET \/data\/api\/getItem\?key=not-there/);
    assert.match(story, new RegExp(`"reqId":"${missingId}"`));
  });

  test("a request's story lists the webhook delivery it caused, whose job links back to it", async () => {
    const page = await open('laptop');
    await page.locator('tr', { hasText: '/data/api/newItem' }).first().getByRole('link').first().click();
    await page.waitForURL(new RegExp(`/admin/logs/${writeId}$`));
    const caused = page.locator('table', { hasText: 'webhook delivery' });
    assert.match(await caused.locator('tbody').innerText(), /webhook delivery\s+done\s+1\s+200/);
    await screenshot(page, 'admin', 'logs-story');
    await caused.locator('tbody tr').first().getByRole('link').first().click();
    await page.waitForURL(/\/admin\/jobs\/[^/]+$/);
    await page.getByRole('link', { name: `request ${writeId}` }).click();
    await page.waitForURL(new RegExp(`/admin/logs/${writeId}$`));
    assert.equal(hook.received[0]?.headers['x-request-id'], writeId);
  });

  test('at phone size the table stays readable (its own scroll, no page-wide overflow)', async () => {
    const page = await open('phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the phone`);
    await screenshot(page, 'admin', 'logs-phone');
  });
});
