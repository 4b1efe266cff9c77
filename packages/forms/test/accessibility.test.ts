// axe-core in chromium on a form with every kind of widget, with the library's own stylesheet and
// with the Bootstrap 5 preset under Bootstrap's stylesheet, before and after a submit that shows
// every kind of error: no violation of WCAG 2.1 A and AA.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { useDemoBrowser } from './helpers/chromium.js';

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const artifacts = new URL('../../../test-artifacts/forms/', import.meta.url).pathname;

interface Violation {
  id: string;
  help: string;
  nodes: Array<{ target: string[] }>;
}

async function violations(page: Page, container = '#a11y-container'): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: axeSource });
  const found = await page.evaluate(async (root) => {
    const axe = (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: unknown }> } }).axe;
    const r = await axe.run(root, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
    return r.violations;
  }, container);
  return (found as Violation[]).map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('accessibility (axe-core)', () => {
  const demo = useDemoBrowser();

  for (const [name, path, shot] of [
    ['the default stylesheet', '/a11y', 'preset-default'],
    ['the Bootstrap 5 preset', '/a11y-bootstrap', 'preset-bootstrap5'],
  ] as const) {
    test(`${name}: no violation, with and without errors shown`, async () => {
      const page = await demo.browser.newPage({ viewport: { width: 900, height: 700 } });
      await page.goto(`${demo.server.url}${path}`);
      assert.deepEqual(await violations(page), []);
      await Promise.all([page.waitForEvent('load'), page.click('#a11ysend\\$')]);
      assert.ok(await page.isVisible('#a11y-errors'), 'the error summary shows');
      assert.ok((await page.locator('[aria-invalid="true"]').count()) >= 5, 'the invalid fields are marked');
      assert.deepEqual(await violations(page), []);
      // The README's pictures of the presets (packages/forms/docs/) are these, with errors shown.
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: `${artifacts}${shot}.png`, fullPage: true });
      await page.close();
    });
  }

  test('rules and live validation: no violation as fields hide, show and show errors', async () => {
    const page = await demo.browser.newPage();
    await page.goto(`${demo.server.url}/rules`);
    assert.deepEqual(await violations(page, '#rules-container'), []);
    await page.check('#rules-kind-1');
    await page.click('button[name="offices$add"]');
    assert.deepEqual(await violations(page, '#rules-container'), [], 'shown, required, an item added');
    await page.goto(`${demo.server.url}/live`);
    for (const [id, bad] of [
      ['username', 'a'],
      ['code', 'x'],
    ] as const)
      await page.fill(`#live-${id}`, bad);
    await page.press('#live-code', 'Tab');
    await page.waitForFunction(() => document.querySelectorAll('[aria-invalid="true"]').length === 2);
    assert.deepEqual(await violations(page, '#live-container'), [], 'errors shown live');
    await page.close();
  });

  test('the wizard: step indicator, errors, repeat items with Move up and Move down: no violation', async () => {
    const page = await demo.browser.newPage({ viewport: { width: 900, height: 700 } });
    await page.goto(`${demo.server.url}/wizard`);
    assert.deepEqual(await violations(page, '#wiz-container'), []);
    await Promise.all([page.waitForEvent('load'), page.click('#wiznext\\$')]);
    assert.ok(await page.isVisible('#wiz-errors'), 'the error summary shows');
    assert.deepEqual(await violations(page, '#wiz-container'), []);
    await page.fill('#wiz-email', 'ada@example.org');
    await Promise.all([page.waitForEvent('load'), page.click('#wiznext\\$')]);
    await page.click('button[name="addresses$add"]');
    await page.click('button[name="addresses$add"]');
    await page.click('#wiz-addresses [data-roost-item]:nth-of-type(2) > button[name="addresses$up"]');
    assert.deepEqual(await violations(page, '#wiz-container'), []);
    await page.close();
  });

  test('the Bootstrap 5 preset: the markup Bootstrap styles', async () => {
    const page = await demo.browser.newPage();
    await page.goto(`${demo.server.url}/a11y-bootstrap`);
    assert.match((await page.getAttribute('#a11y-size', 'class')) ?? '', /\bform-select\b/);
    assert.match((await page.getAttribute('#a11y-terms', 'class')) ?? '', /\bform-check-input\b/);
    assert.equal(await page.locator('.form-check > #a11y-terms').count(), 1, 'the checkbox in its form-check');
    assert.equal(await page.getAttribute('label[for="a11y-password-confirm"]', 'class'), 'form-label mt-2');
    await Promise.all([page.waitForEvent('load'), page.click('#a11ysend\\$')]);
    assert.equal(await page.locator('#a11y-errors.alert-danger h2').count(), 1);
    assert.ok((await page.locator('#a11y-errors a.alert-link').count()) >= 5);
    await page.close();
  });
});
