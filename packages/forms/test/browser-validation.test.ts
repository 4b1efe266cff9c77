// The browser's own validation, on pages without `novalidate` (as a host renders a form by
// default), in Debian's chromium with JavaScript on and off: Cancel goes through on an empty form,
// and a required field of a controlset item out of sight never blocks a submit silently (out of
// sight, it is a rule's hidden field: neither checked nor sent, by the browser or the server).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useDemoBrowser } from './helpers/chromium.js';

describe('browser validation', () => {
  const demo = useDemoBrowser();

  /** Whether the browser would submit the form now (its own constraint validation). */
  const formValid = (page: Page) => page.$eval('form', (form) => (form as HTMLFormElement).checkValidity());

  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';

    test(`${mode}: Cancel on an empty form reaches the server; Send is held by the browser`, async () => {
      const page = await demo.open('/validated', js);
      assert.equal(await page.getAttribute('#signupcancel\\$', 'formnovalidate'), '');
      assert.equal(await page.getAttribute('#signupsend\\$', 'formnovalidate'), null);
      assert.equal(await formValid(page), false, 'the empty required fields hold a submit');
      const before = demo.server.received.length;
      await page.click('#signupsend\\$');
      assert.match(page.url(), /\/validated$/, 'Send did not leave the page');
      await Promise.all([page.waitForURL(/\/cancelled$/), page.click('#signupcancel\\$')]);
      assert.equal(demo.server.received.length, before, 'nothing was processed');
      await page.context().close();
    });
  }

  test('constraints: the browser holds what the server would refuse (pattern, min, email)', async () => {
    const page = await demo.open('/constraints', false);
    for (const [id, bad, good] of [
      ['code', 'abc-1', 'ABC-1'],
      ['age', '17', '18'],
      ['email', 'not-an-address', 'ada@example.com'],
    ] as const) {
      await page.fill(`#limits-${id}`, bad);
      assert.equal(await formValid(page), false, `${id}: ${bad}`);
      await page.fill(`#limits-${id}`, good);
    }
    assert.equal(await formValid(page), true);
    const before = demo.server.received.length;
    await Promise.all([page.waitForEvent('load'), page.click('#limitssend\\$')]);
    assert.deepEqual(demo.server.received.slice(before), [{ code: 'ABC-1', age: 18, email: 'ada@example.com' }]);
    await page.context().close();
  });

  for (const js of [true, false]) {
    test(`repeating group ${js ? 'with' : 'without'} JavaScript: add, fill, remove, send`, async () => {
      const page = await demo.open('/groups', js);
      const click = async (selector: string) => {
        // Without the script each Add and Remove is a round trip to the server.
        if (js) await page.click(selector);
        else await Promise.all([page.waitForEvent('load'), page.click(selector)]);
      };
      await page.fill('#people-name', 'Ada');
      await click('button[name="addresses$add"]');
      await click('button[name="addresses$add"]');
      const streets = page.locator('input[name$=".street"]:not(template *)');
      assert.equal(await streets.count(), 2);
      await streets.nth(0).fill('First St');
      await streets.nth(1).fill('Second St');
      await page.locator('input[name$=".city"]').nth(1).fill('Zürich');
      await click('[data-roost-item]:first-of-type button[name="addresses$remove"]');
      assert.equal(await streets.count(), 1);
      const before = demo.server.received.length;
      await Promise.all([page.waitForEvent('load'), page.click('#peoplesend\\$')]);
      assert.deepEqual(demo.server.received.slice(before), [
        { name: 'Ada', addresses: [{ street: 'Second St', city: 'Zürich' }] },
      ]);
      await page.context().close();
    });
  }

  test('with JavaScript: a hidden controlled field is disabled, so not sent; the server leaves it out', async () => {
    const page = await demo.open('/validated', true);
    assert.equal(await page.isHidden('#item-phone'), true);
    assert.equal(await page.isDisabled('#signup-phone'), true, 'out of sight, out of the browser check');
    await page.fill('#signup-name', 'Ada');
    await page.fill('#signup-email', 'ada@example.com');
    assert.equal(await formValid(page), true);
    const before = demo.server.received.length;
    await Promise.all([page.waitForEvent('load'), page.click('#signupsend\\$')]);
    // Decided in round three (README "Decisions"): a controlled field is a SHOW rule's field, so
    // the server leaves it out while hidden, as the page does; it used to answer "Phone number:
    // Required" for the field out of sight.
    assert.deepEqual(demo.server.received.slice(before), [{ name: 'Ada', email: 'ada@example.com', contact: 'mail' }]);
    await page.context().close();
  });

  test('with JavaScript and skipUnselectedControls: required only while shown', async () => {
    const page = await demo.open('/validated-skip', true);
    await page.fill('#signup-name', 'Ada');
    await page.fill('#signup-email', 'ada@example.com');
    assert.equal(await page.isHidden('#item-phone'), true);
    await page.selectOption('#signup-contact', 'phone');
    assert.equal(await page.isVisible('#item-phone'), true);
    assert.equal(await page.$eval('#signup-phone', (el) => (el as HTMLInputElement).required), true);
    assert.equal(await formValid(page), false, 'shown, the phone number is required');
    await page.selectOption('#signup-contact', 'mail');
    assert.equal(await formValid(page), true, 'hidden again, it holds nothing');
    const before = demo.server.received.length;
    await Promise.all([page.waitForEvent('load'), page.click('#signupsend\\$')]);
    assert.deepEqual(demo.server.received.slice(before), [{ name: 'Ada', email: 'ada@example.com', contact: 'mail' }]);
    await page.context().close();
  });

  test("without JavaScript: controlled fields show; the server requires the chosen item's", async () => {
    const page = await demo.open('/validated-skip', false);
    // Without a script a controlset's fields show (rules/rule-box.ts `openWithoutScript`), and
    // the browser does not require them: the chosen item's are required by the server.
    assert.equal(await page.isVisible('#item-phone'), true);
    assert.equal(await page.getAttribute('#signup-phone', 'required'), null);
    assert.equal(await page.getAttribute('#signup-name', 'required'), '');
    await page.fill('#signup-name', 'Ada');
    await page.fill('#signup-email', 'ada@example.com');
    await page.selectOption('#signup-contact', 'phone');
    // The server stays the authority: the selected item's field is required there.
    await Promise.all([page.waitForEvent('load'), page.click('#signupsend\\$')]);
    assert.match((await page.textContent('#signup-errors')) ?? '', /Phone number/);
    const before = demo.server.received.length;
    await page.fill('#signup-phone', '+41 44 000 00 00');
    await Promise.all([page.waitForEvent('load'), page.click('#signupsend\\$')]);
    assert.deepEqual(demo.server.received.slice(before), [
      { name: 'Ada', email: 'ada@example.com', contact: 'phone', phone: '+41 44 000 00 00' },
    ]);
    await page.context().close();
  });
});
