// Validation as you type (issue 43, item 9) in Debian's chromium: a field is checked when the user
// leaves it, with the server's own rules and messages — constraints in the page, a validator
// marked browserSafe in the page, a format and an async validator ("name taken") through the
// form's own url — and with JavaScript off the same page gives the same messages on submit.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useDemoBrowser } from './helpers/chromium.js';

/** What each field is given, and the message the server has for it. */
const mistakes = [
  ['username', 'ad', 'Shorter than minimum length 3'],
  ['email', 'nope', 'Invalid email address'],
  ['code', 'abc', 'Does not match the required format'],
  ['pairs', '3', 'Must be even'],
  ['nick', 'a b', 'No spaces'],
] as const;

describe('live validation', () => {
  const demo = useDemoBrowser();

  /** The live checks the page asks of the server (the form's own url, `roost$validate`). */
  const asked = (page: Page): string[] => {
    const fields: string[] = [];
    page.on('request', (r) => {
      const field = new URLSearchParams(r.postData() ?? '').get('roost$validate');
      if (field) fields.push(field);
    });
    return fields;
  };
  const errorText = (page: Page, id: string) => page.locator(`#live-${id}-error`).innerText();

  test('with JavaScript: leaving a field shows the server’s message; fixing it clears it', async () => {
    const page = await demo.open('/live', true);
    const questions = asked(page);
    for (const [id, bad, message] of mistakes) {
      await page.fill(`#live-${id}`, bad);
      await page.press(`#live-${id}`, 'Tab');
      await page.waitForFunction((sel) => document.querySelector(sel)?.textContent !== '', `#live-${id}-error`);
      assert.equal(await errorText(page, id), message, id);
      assert.equal(await page.getAttribute(`#live-${id}`, 'aria-invalid'), 'true', id);
      assert.match((await page.getAttribute(`#live-${id}`, 'aria-describedby')) ?? '', new RegExp(`live-${id}-error`));
      assert.match(
        (await page.getAttribute(`#live-${id}-label`, 'class')) ?? '',
        /\berror\b/,
        'the label as a submit marks it',
      );
    }
    // The page checked the constraints and the browser-safe validator itself; the e-mail's
    // format is the server's to say (and the user name, whose validator is not browser-safe,
    // once it passes its constraints).
    assert.deepEqual(questions, ['email']);
    assert.equal(await page.getAttribute('#live-username-error', 'aria-live'), 'polite');

    await page.fill('#live-pairs', '4');
    await page.press('#live-pairs', 'Tab');
    assert.equal(await errorText(page, 'pairs'), '');
    assert.equal(await page.getAttribute('#live-pairs', 'aria-invalid'), null);
    assert.equal(await page.getAttribute('#live-pairs', 'aria-describedby'), null);
    assert.doesNotMatch((await page.getAttribute('#live-pairs-label', 'class')) ?? '', /\berror\b/);
    await page.context().close();
  });

  test('with JavaScript: an async validator answers through the form’s url, as you type once wrong', async () => {
    const page = await demo.open('/live', true);
    const questions = asked(page);
    const before = demo.server.received.length;
    await page.fill('#live-username', 'ada');
    await page.press('#live-username', 'Tab');
    await page.waitForFunction(() => document.querySelector('#live-username-error')?.textContent === 'Name taken');
    assert.deepEqual(questions, ['username']);
    // Typing in a field that shows an error checks it again, without leaving it.
    await page.focus('#live-username');
    await page.type('#live-username', 'm');
    await page.waitForFunction(() => document.querySelector('#live-username-error')?.textContent === '');
    assert.equal(await page.getAttribute('#live-username', 'aria-invalid'), null);
    assert.equal(demo.server.received.length, before, 'a live check submits nothing');
    await page.context().close();
  });

  test('with JavaScript: a repeat is checked by the server, its message at the repeat, the input marked', async () => {
    const page = await demo.open('/live', true);
    await page.click('button[name="guests$add"]');
    await page.focus('#live-guests-0-name');
    await page.press('#live-guests-0-name', 'Tab');
    await page.waitForFunction(() => document.querySelector('#live-guests-error')?.textContent !== '');
    assert.equal(await errorText(page, 'guests'), 'Guest 1, Name: Required');
    assert.equal(await page.getAttribute('#live-guests-0-name', 'aria-invalid'), 'true');
    await page.fill('#live-guests-0-name', 'Grace');
    await page.press('#live-guests-0-name', 'Tab');
    await page.waitForFunction(() => document.querySelector('#live-guests-error')?.textContent === '');
    assert.equal(await page.getAttribute('#live-guests-0-name', 'aria-invalid'), null);
    await page.context().close();
  });

  test('a CSP without unsafe-eval: a browser-safe validator is asked of the server instead', async () => {
    const page = await demo.open('/live-csp', true);
    const questions = asked(page);
    await page.fill('#live-nick', 'a b');
    await page.press('#live-nick', 'Tab');
    await page.waitForFunction(() => document.querySelector('#live-nick-error')?.textContent === 'No spaces');
    assert.deepEqual(questions, ['nick'], 'with eval allowed, the page says it alone (first test)');
    await page.context().close();
  });

  test('without JavaScript nothing is checked early, and the submit says the same', async () => {
    const page = await demo.open('/live', false);
    for (const [id, bad] of mistakes) {
      await page.fill(`#live-${id}`, bad);
      await page.press(`#live-${id}`, 'Tab');
      assert.equal(await errorText(page, id), '', `${id}: nothing before the submit`);
    }
    await Promise.all([page.waitForEvent('load'), page.click('#livesend\\$')]);
    for (const [id, , message] of mistakes) assert.equal(await errorText(page, id), message, id);
    await page.context().close();
  });
});
