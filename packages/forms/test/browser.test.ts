// A real browser (Debian's chromium through playwright-core) fills and submits rendered forms
// without JavaScript and with use_ajax, and watches the upload progress bar. Fails when
// /usr/bin/chromium is missing: CI installs it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import type { KyselyContent } from '../src/index.js';
import { launchChromium } from './helpers/chromium.js';
import { openContent } from './helpers/content-db.js';
import { startDemoServer, type DemoServer } from './helpers/demo-server.js';
const artifacts = new URL('../../../test-artifacts/forms/', import.meta.url).pathname;

describe('browser', () => {
  let browser: Browser;
  let server: DemoServer;
  let content: KyselyContent;
  let closeContent: (() => Promise<void>) | undefined;

  before(async () => {
    mkdirSync(artifacts, { recursive: true });
    ({ content, close: closeContent } = await openContent('sqlite', {
      metaFields: [{ id: 'title', name: 'Title', datatype: 'string', required: true }],
      types: [{ id: 'article', name: 'Article', data: [{ id: 'body', name: 'Text', datatype: 'text' }] }],
    }));
    server = await startDemoServer(content);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await closeContent?.();
  });

  test('ObjectForm round trip: create (errors, then a redirect to the new object), edit, stored', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/content/new`);
    await page.fill('#upload-body', 'Body <b>text</b>');
    await page.click('button[name="create$"]');
    await page.waitForSelector('#upload-errors');
    assert.match((await page.textContent('#upload-errors')) ?? '', /Title: Required/);
    assert.equal(await page.inputValue('#upload-body'), 'Body <b>text</b>');
    await page.fill('#upload-title', 'First article');
    await Promise.all([page.waitForURL(/\/content\/(?!new)[\w-]+$/), page.click('button[name="create$"]')]);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    assert.equal((await page.textContent('.flash'))?.trim(), 'OK. Data saved.', 'the redirect flashed the message');
    assert.equal(await page.inputValue('#upload-title'), 'First article', 'the edit form shows the stored values');
    await page.screenshot({ path: `${artifacts}object-created.png`, fullPage: true });
    await page.fill('#upload-title', 'Renamed');
    await Promise.all([page.waitForEvent('load'), page.click('button[name="edit$"]')]);
    assert.equal(await page.locator('.flash').count(), 0, 'a new page: no redirect this time');
    assert.equal((await page.textContent('[role=status]'))?.trim(), 'OK. Data saved.');
    assert.equal(await page.inputValue('#upload-title'), 'Renamed');
    const stored = await content.get(id);
    assert.deepEqual(
      [stored?.type, stored?.meta.title, stored?.data.body, stored?.meta.pool_createdby],
      ['article', 'Renamed', 'Body <b>text</b>', 'browser'],
    );
    await page.screenshot({ path: `${artifacts}object-edited.png`, fullPage: true });
    await context.close();
  });

  test('without JavaScript: errors, then the success message', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/plain`);
    assert.equal(await page.isVisible('#item-phone'), true, 'controlled fields are visible without JS');
    await page.fill('#upload-email', 'not-an-email');
    await page.click('button[name="send$"]');
    await page.waitForSelector('#upload-errors');
    assert.match((await page.textContent('#upload-errors')) ?? '', /Name: Required/);
    assert.equal(await page.getAttribute('#upload-email', 'aria-invalid'), 'true');
    assert.equal(await page.inputValue('#upload-email'), 'not-an-email');
    await page.screenshot({ path: `${artifacts}plain-errors.png`, fullPage: true });
    await page.fill('#upload-name', 'Ada Lovelace');
    await page.fill('#upload-email', 'ada@example.org');
    await page.selectOption('#upload-contact', 'phone');
    await page.fill('#upload-phone', '123');
    await page.click('button[name="send$"]');
    await page.waitForSelector('[role=status]');
    assert.equal((await page.textContent('[role=status]'))?.trim(), 'Thank you!');
    assert.equal(await page.inputValue('#upload-name'), 'Ada Lovelace');
    await page.screenshot({ path: `${artifacts}plain-success.png`, fullPage: true });
    await context.close();
  });

  test('with use_ajax: the form is replaced in place, errors then success; controlsets toggle', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.url}/ajax`);
    assert.equal(await page.isVisible('#item-phone'), false, 'the phone field is hidden while "E-mail" is selected');
    await page.selectOption('#ajaxform-contact', 'phone');
    assert.equal(await page.isVisible('#item-phone'), true);
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
    });
    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));
    await page.click('button[name="send$"]');
    await page.waitForSelector('#ajaxform-errors');
    assert.match((await page.textContent('#ajaxform-errors')) ?? '', /Name: Required/);
    await page.screenshot({ path: `${artifacts}ajax-errors.png`, fullPage: true });
    await page.fill('#ajaxform-name', 'Ada');
    await page.fill('#ajaxform-email', 'ada@example.org');
    await page.click('button[name="send$"]');
    await page.waitForSelector('[role=status]');
    assert.equal((await page.textContent('[role=status]'))?.trim(), 'Thank you!');
    assert.equal(
      await page.evaluate(() => (window as unknown as { marker?: number }).marker),
      1,
      'no page load happened',
    );
    assert.deepEqual(navigations, []);
    assert.equal(await page.isVisible('#item-phone'), true, 'the replaced form is initialised again');
    assert.deepEqual(pageErrors, []);
    await page.screenshot({ path: `${artifacts}ajax-success.png`, fullPage: true });
    await context.close();
  });

  test('with use_ajax and a field named "action": the post goes to the form\'s action url', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const navigations: string[] = [];
    await page.goto(`${server.url}/ajax-action-field`);
    page.on('framenavigated', (f) => navigations.push(f.url()));
    const posted: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && posted.push(new URL(r.url()).pathname)));
    await page.selectOption('#decide-action', 'no');
    await page.click('button[name="send$"]');
    await page.waitForSelector('[role=status]');
    assert.equal((await page.textContent('[role=status]'))?.trim(), 'Thank you!');
    assert.deepEqual([posted, navigations], [['/ajax-action-field'], []]);
    await context.close();
  });

  test('upload progress bar (auto): appears after 500 ms of a slow upload and grows', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/upload`);
    assert.equal(await page.isVisible('[data-roost-progress]'), false);
    const size = 20 * 1024 * 1024;
    await page.setInputFiles('#up-doc', {
      name: 'big.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.alloc(size, 7),
    });
    // Sample the bar from inside the page so no state change is missed.
    // A string, not a function: tsx would inject its __name helper into the page otherwise.
    await page.evaluate(`(() => {
      window.samples = [];
      window.t0 = 0;
      const started = () => { window.t0 = performance.now(); };
      document.querySelector('form').addEventListener('submit', started, { capture: true });
      const tick = () => {
        const bar = document.querySelector('[data-roost-progress]');
        const now = bar && bar.firstElementChild.getAttribute('aria-valuenow');
        if (window.t0 && bar) window.samples.push([performance.now() - window.t0, !bar.hidden, now]);
        requestAnimationFrame(tick);
      };
      tick();
    })()`);
    await page.click('button[name="send$"]');
    await page.waitForSelector('[data-roost-progress]:not([hidden])', { timeout: 10_000 });
    await page.screenshot({ path: `${artifacts}upload-progress.png`, fullPage: true });
    await page.waitForSelector('[role=status]', { timeout: 30_000 });
    const samples = (await page.evaluate('window.samples')) as Array<[number, boolean, string]>;
    assert.equal((await page.textContent('[role=status]'))?.trim(), 'Thank you!');
    assert.deepEqual(server.uploads, [size]);
    const firstVisible = samples.find(([, visible]) => visible);
    assert.ok(firstVisible, 'the bar became visible');
    assert.ok(firstVisible[0] >= 450, `shown after the 500 ms delay, not at ${Math.round(firstVisible[0])} ms`);
    assert.ok(
      samples.some(([t, visible]) => t < 400 && !visible),
      'hidden during the first 500 ms',
    );
    const values = samples.filter(([, v]) => v).map(([, , p]) => Number(p));
    assert.ok(
      values.every((v, i) => i === 0 || v >= (values[i - 1] ?? 0)),
      'progress never goes back',
    );
    assert.ok(
      values.every((v) => v <= 98),
      'capped at 98% until the answer',
    );
    assert.ok(
      new Set(values).size > 2 && Math.max(...values) > Math.min(...values),
      `the bar grows: ${[...new Set(values)].join(',')}`,
    );
    console.log(
      `upload: visible at ${Math.round(firstVisible[0])} ms, values ${[...new Set(values)].join(',')}, last sample ` +
        `${Math.round(samples.at(-1)?.[0] ?? 0)} ms`,
    );
    await context.close();
  });

  test('upload progress bar (always): shown as soon as the form is sent', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/upload-always`);
    assert.equal(await page.isVisible('[data-roost-progress]'), false);
    await page.setInputFiles('#up-doc', {
      name: 'a.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.alloc(8 * 1024 * 1024, 1),
    });
    await page.evaluate(`document.querySelector('form').addEventListener('submit', () => {
      queueMicrotask(() => { window.shownAtSend = !document.querySelector('[data-roost-progress]').hidden; });
    })`);
    await page.click('button[name="send$"]');
    await page.waitForSelector('[role=status]', { timeout: 30_000 });
    assert.equal(await page.evaluate('window.shownAtSend'), true);
    await context.close();
  });
});
