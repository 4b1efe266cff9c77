// Rules (issue 43, item 10) in Debian's chromium: fields shown, hidden, enabled, disabled and
// required from other fields' values, at the top and inside the items of a repeat, live with
// JavaScript and after a submit without it; what a rule hides is never in the data.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useDemoBrowser } from './helpers/chromium.js';

describe('rules in the browser', () => {
  const demo = useDemoBrowser();

  const submit = (page: Page) => Promise.all([page.waitForEvent('load'), page.click('#rulessend\\$')]);
  const box = (page: Page, input: string) => page.locator(`fieldset.roost-rule:has(${input})`);

  test('with JavaScript: a choice shows, requires and enables other fields as it changes', async () => {
    const page = await demo.open('/rules', true);
    assert.equal(await page.isHidden('#rules-company'), true);
    assert.equal(await page.isDisabled('#rules-company'), true, 'hidden: neither checked nor sent');
    assert.equal(await page.$eval('#rules-vat', (el) => (el as HTMLInputElement).required), false);
    await page.check('#rules-kind-1');
    assert.equal(await page.isVisible('#rules-company'), true);
    assert.equal(await page.isEnabled('#rules-company'), true);
    assert.equal(await page.$eval('#rules-vat', (el) => (el as HTMLInputElement).required), true);
    assert.match((await page.getAttribute('#rules-vat-label', 'class')) ?? '', /\brequired\b/);
    await page.check('#rules-kind-0');
    assert.equal(await page.isHidden('#rules-company'), true);
    assert.equal(await page.$eval('#rules-vat', (el) => (el as HTMLInputElement).required), false);

    assert.equal(await page.isDisabled('#rules-topic'), true);
    assert.equal(await box(page, '#rules-topic').isVisible(), true, 'disabled, still in sight');
    await page.check('#rules-news');
    assert.equal(await page.isEnabled('#rules-topic'), true);

    // In an item of a repeat, the rule reads the fields of that item, also in an item the script added.
    await page.click('button[name="offices$add"]');
    await page.click('button[name="offices$add"]');
    await page.selectOption('#rules-offices-0-type', 'hq');
    assert.equal(await page.isHidden('#rules-offices-0-city'), true);
    assert.equal(await page.isVisible('#rules-offices-1-city'), true);
    await page.fill('#rules-offices-1-city', 'Bern');

    await page.check('#rules-kind-1');
    await page.fill('#rules-company', 'ACME');
    await page.fill('#rules-vat', 'CHE-1');
    await page.fill('#rules-topic', 'Birds');
    const before = demo.server.received.length;
    await submit(page);
    assert.deepEqual(demo.server.received.slice(before), [
      {
        kind: 'business',
        company: 'ACME',
        vat: 'CHE-1',
        news: true,
        topic: 'Birds',
        offices: [{ type: 'hq' }, { type: 'branch', city: 'Bern' }],
      },
    ]);
    await page.context().close();
  });

  test('with JavaScript and live validation: a rule that hides a field clears its error for good', async () => {
    const page = await demo.open('/rules-live', true);
    const error = (id: string) => page.locator(`#rules-${id}-error`).innerText();
    const invalid = (id: string) => page.getAttribute(`#rules-${id}`, 'aria-invalid');
    await page.check('#rules-kind-1');
    for (const id of ['company', 'vat']) {
      await page.focus(`#rules-${id}`);
      await page.press(`#rules-${id}`, 'Tab');
      assert.deepEqual([await error(id), await invalid(id)], ['Required', 'true'], id);
    }
    // Private: the company is hidden, the VAT number no longer required; Business again: both clean.
    await page.check('#rules-kind-0');
    assert.deepEqual([await error('company'), await invalid('company')], ['', null]);
    assert.deepEqual([await error('vat'), await invalid('vat')], ['', null]);
    await page.check('#rules-kind-1');
    assert.equal(await page.isVisible('#rules-company'), true);
    assert.deepEqual([await error('company'), await invalid('company')], ['', null], 'no error back with it');

    // In a repeat item: the server answers for the repeat, without the hidden city; shown again,
    // the city is not reached yet, and the item's check (its choice changed) leaves it clean.
    await page.click('button[name="offices$add"]');
    await page.focus('#rules-offices-0-city');
    await page.press('#rules-offices-0-city', 'Tab');
    await page.waitForFunction(() => document.querySelector('#rules-offices-error')?.textContent !== '');
    assert.equal(await invalid('offices-0-city'), 'true');
    await page.selectOption('#rules-offices-0-type', 'hq');
    await page.waitForFunction(() => document.querySelector('#rules-offices-error')?.textContent === '');
    assert.equal(await invalid('offices-0-city'), null);
    const answered = page.waitForResponse((r) => {
      const sent = new URLSearchParams(r.request().postData() ?? '');
      return sent.get('roost$validate') === 'offices' && sent.get('offices.0.type') === 'branch';
    });
    await page.selectOption('#rules-offices-0-type', 'branch');
    const answer = (await (await answered).json()) as { messages: string[] };
    await page.evaluate(() => new Promise((done) => setTimeout(done, 100))); // the page has read it too
    assert.deepEqual(answer.messages, ['Office 1, City: Required'], 'the server still says it');
    assert.equal(await page.isVisible('#rules-offices-0-city'), true);
    assert.deepEqual([await error('offices'), await invalid('offices-0-city')], ['', null], 'the page, not yet');
    // Left empty now, the city shows its error.
    await page.focus('#rules-offices-0-city');
    await page.press('#rules-offices-0-city', 'Tab');
    await page.waitForFunction(() => document.querySelector('#rules-offices-error')?.textContent !== '');
    assert.equal(await error('offices'), 'Office 1, City: Required');
    await page.context().close();
  });

  test('without JavaScript: the page follows the rules after a round trip; what they hide is not sent', async () => {
    const page = await demo.open('/rules', false);
    assert.equal(await page.isHidden('#rules-company'), true);
    await page.check('#rules-kind-1');
    assert.equal(await page.isHidden('#rules-company'), true, 'no script: nothing moves before the server answers');
    await Promise.all([page.waitForEvent('load'), page.click('button[name="offices$add"]')]);
    // The server drew the page from the values sent: a business shows its company, requires its VAT number.
    assert.equal(await page.isVisible('#rules-company'), true);
    assert.equal(await page.getAttribute('#rules-company', 'required'), '');
    assert.equal(await page.getAttribute('#rules-vat', 'required'), '');
    assert.equal(await page.isDisabled('#rules-topic'), true);
    await page.selectOption('#rules-offices-0-type', 'hq');
    await page.fill('#rules-offices-0-city', 'Typed before the rule applied');
    await page.fill('#rules-company', 'ACME');
    await page.fill('#rules-vat', 'CHE-1');
    const before = demo.server.received.length;
    await submit(page);
    assert.deepEqual(demo.server.received.slice(before), [
      { kind: 'business', company: 'ACME', vat: 'CHE-1', news: false, offices: [{ type: 'hq' }] },
    ]);
    assert.equal(await page.isHidden('#rules-offices-0-city'), true, 'the head office has no city');
    await page.context().close();
  });

  test('a controlset controlled by checkboxes: its fields follow the choice, the chosen one required', async () => {
    const page = await demo.open('/controlset-checks', true);
    assert.equal(await page.isHidden('#rules-street'), true);
    assert.equal(await page.isHidden('#rules-cc'), true);
    await page.check('#rules-via-0');
    assert.equal(await page.isVisible('#rules-street'), true);
    assert.equal(await page.$eval('#rules-street', (el) => (el as HTMLInputElement).required), true);
    await page.check('#rules-via-1');
    await page.uncheck('#rules-via-0');
    assert.equal(await page.isHidden('#rules-street'), true, 'unchosen again: hidden, not required');
    await page.fill('#rules-cc', 'ada@example.com');
    const before = demo.server.received.length;
    await submit(page);
    assert.deepEqual(demo.server.received.slice(before), [{ via: ['mail'], cc: 'ada@example.com' }]);
    await page.context().close();
  });
});
