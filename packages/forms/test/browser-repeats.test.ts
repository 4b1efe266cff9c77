// Repeats in Debian's chromium, JavaScript on and off: a repeat inside a group or inside another
// repeat keeps what was typed when items are added or removed, Enter in a text field sends the
// form's default action (never a repeat's Remove or Add), focus stays in the list after a Remove
// and Add stops at maxItems. Also where focus goes on a page that comes back with errors, and an
// upload kept across such a page.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useDemoBrowser } from './helpers/chromium.js';

describe('browser repeats', () => {
  const demo = useDemoBrowser();

  /** Without the script each Add and Remove is a round trip to the server. */
  const press = async (page: Page, js: boolean, selector: string) => {
    if (js) await page.click(selector);
    else await Promise.all([page.waitForEvent('load'), page.click(selector)]);
  };

  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';

    test(`${mode}: a repeat in a group and a repeat in a repeat keep everything typed`, async () => {
      const page = await demo.open('/nested', js);
      // With the script every Add happens in this page: a round trip to the server would lose the mark.
      if (js) await page.evaluate(() => Object.assign(window, { roostSamePage: true }));
      await page.fill('#nest-name', 'Ada');
      await page.fill('#nest-company-cname', 'ACME');
      await press(page, js, 'button[name="company.offices$add"]');
      await page.fill('#nest-company-offices-0-city', 'Basel');
      await press(page, js, 'button[name="floors$add"]');
      await page.fill('#nest-floors-0-level', 'Ground');
      await press(page, js, 'button[name="floors.0.rooms$add"]');
      await page.fill('#nest-floors-0-rooms-0-no', 'G1');
      await press(page, js, 'button[name="floors.0.rooms$add"]');
      await page.fill('#nest-floors-0-rooms-1-no', 'G2');
      await press(page, js, 'button[name="floors$add"]');
      await page.fill('#nest-floors-1-level', 'First');
      await press(page, js, 'button[name="floors.1.rooms$add"]');
      await page.fill('#nest-floors-1-rooms-0-no', 'F1');
      assert.equal(await page.isDisabled('button[name="floors$add"]'), true, 'maxItems 2 reached');
      assert.equal(await page.inputValue('#nest-name'), 'Ada');
      assert.equal(await page.inputValue('#nest-company-cname'), 'ACME');
      if (js) assert.ok(await page.evaluate(() => 'roostSamePage' in window), 'the script added every item');
      const before = demo.server.received.length;
      await Promise.all([page.waitForEvent('load'), page.click('#nestsend\\$')]);
      assert.deepEqual(demo.server.received.slice(before), [
        {
          name: 'Ada',
          company: { cname: 'ACME', offices: [{ city: 'Basel' }] },
          floors: [
            { level: 'Ground', rooms: [{ no: 'G1' }, { no: 'G2' }] },
            { level: 'First', rooms: [{ no: 'F1' }] },
          ],
        },
      ]);
      await page.context().close();
    });

    test(`${mode}: Enter in a text field sends the form, never a repeat's Remove or Add`, async () => {
      const page = await demo.open('/nested', js);
      await press(page, js, 'button[name="company.offices$add"]');
      await page.fill('#nest-company-offices-0-city', 'Basel');
      await page.fill('#nest-name', 'Ada');
      const before = demo.server.received.length;
      await Promise.all([page.waitForEvent('load'), page.press('#nest-name', 'Enter')]);
      assert.deepEqual(demo.server.received.slice(before), [
        { name: 'Ada', company: { cname: '', offices: [{ city: 'Basel' }] }, floors: [] },
      ]);
      assert.match((await page.textContent('[role=status]')) ?? '', /Thank you!/);
      await page.context().close();
    });
  }

  for (const js of [true, false]) {
    test(`${js ? 'with' : 'without'} JavaScript: an upload is kept when the form comes back with errors`, async () => {
      const page = await demo.open('/kept', js);
      await page.setInputFiles('#kept-doc', {
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('hello'),
      });
      await Promise.all([page.waitForEvent('load'), page.click('#keptsend\\$')]);
      assert.match((await page.textContent('#kept-errors')) ?? '', /Title: Required/);
      assert.match((await page.textContent('#kept-doc-kept')) ?? '', /Kept file: notes\.txt \(5 B\)/);
      await page.fill('#kept-title', 'Notes');
      const before = demo.server.received.length;
      await Promise.all([page.waitForEvent('load'), page.click('#keptsend\\$')]);
      const doc = (demo.server.received[before] as { doc?: { filename: string; size: number } } | undefined)?.doc;
      assert.deepEqual([doc?.filename, doc?.size], ['notes.txt', 5]);
      await page.context().close();
    });
  }

  test('with JavaScript: a full page that comes back with errors starts at its error summary', async () => {
    const page = await demo.open('/plain', true);
    await Promise.all([page.waitForEvent('load'), page.click('button[name="send$"]')]);
    await page.waitForSelector('#upload-errors');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'upload-errors');
    assert.equal(await page.evaluate(() => document.querySelector('#upload-errors h2') !== null), true);
    await page.context().close();
  });

  test('with JavaScript: focus stays in the list after a Remove (the next item, else Add)', async () => {
    const page = await demo.open('/nested', true);
    await page.click('button[name="company.offices$add"]');
    await page.click('button[name="company.offices$add"]');
    await page.fill('#nest-company-offices-1-city', 'Bern');
    await page.click('#nest-company-offices [data-roost-item]:first-of-type button[name="company.offices$remove"]');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'nest-company-offices-1-city');
    await page.click('button[name="company.offices$remove"]');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'company.offices$add');
    await page.context().close();
  });
});
