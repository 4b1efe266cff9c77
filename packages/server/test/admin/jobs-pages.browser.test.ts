import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { ExtensionJobs } from '../../src/extend/jobs.js';
import { launchBrowser, screenshot, signedInContext, VIEWPORTS } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';
import { eventually } from '../scale/scale-helpers.js';

/**
 * The extensions' jobs on the admin jobs page (admin/pages/jobs-pages.ts; docs/hooks.md, "Jobs")
 * in chromium: a scheduled job listed with its cron and next run, run now from its page; a failed
 * background job shown with its error and run again. SQLite pass only, as every browser suite:
 * test/http/extension-jobs.test.ts covers the jobs on both databases.
 */
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

describe('the jobs page in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let jobs: ExtensionJobs | undefined;
  const nightlyRuns: Array<Date | null> = [];
  let tries = 0;

  before(async () => {
    s = await startServer(
      {},
      {
        extensions: [
          (roost) => {
            jobs = roost.jobs;
            roost.jobs.schedule('nightly', '0 3 * * *', ({ tick }) => void nightlyRuns.push(tick), {
              timezone: 'Europe/Paris',
            });
            roost.jobs.define(
              'report',
              () => {
                tries++;
                if (tries === 1) throw new Error('the report server said no');
              },
              { retries: 0 },
            );
          },
        ],
      },
    );
    await s.adminToken();
    browser = await launchBrowser();
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD, { viewport: VIEWPORTS.laptop });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('a scheduled job is listed with its cron and next run, and runs now from its page', async () => {
    await page.goto('/admin/jobs');
    const row = page.locator('table', { hasText: 'Cron' }).locator('tbody tr', { hasText: 'nightly' });
    assert.match(await row.innerText(), /0 3 \* \* \*\s+Europe\/Paris\s+\d{4}\/\d\d\/\d\d (01|02):00:00/);
    await screenshot(page, 'admin', 'jobs-laptop');
    await row.getByRole('link', { name: 'nightly' }).click();
    await page.waitForURL(/\/admin\/jobs\/schedules\/nightly$/);
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.waitForURL(/\/admin\/jobs\?kind=schedule%3Anightly$/);
    await eventually(async () => nightlyRuns.length === 1, 'the run asked for', 5000);
    assert.deepEqual(nightlyRuns, [null]);
  });

  test('a failed background job shows its error and runs again', async () => {
    const id = await jobs!.enqueue('report', { month: '2026-11' });
    await eventually(async () => tries === 1, 'the first try', 5000);
    await eventually(
      async () =>
        (await s.request(`/admin/jobs/${id}`, undefined, { token: await s.adminToken() })).body.includes('said no'),
      'the failure recorded',
      5000,
    );
    await page.goto('/admin/jobs?state=failed');
    await page.locator('tr', { hasText: 'job:report' }).getByRole('link').click();
    assert.match(await page.locator('main').innerText(), /the report server said no/);
    await page.getByRole('button', { name: 'Run again' }).click();
    await eventually(async () => tries === 2, 'the second try', 5000);
  });
});
