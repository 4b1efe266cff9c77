// The wizard and reordering in Debian's chromium: with JavaScript off (every step a full page),
// on with full pages, and on over ajax. Back and Next keep what was typed and the upload, a step
// validates its own fields only, a changed state is refused, Move up works by keyboard (in place
// with focus kept and announced, or as a submit button) and the order reaches the data.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useDemoBrowser } from './helpers/chromium.js';

type Mode = { name: string; path: string; js: boolean; ajax: boolean };
const modes: Mode[] = [
  { name: 'without JavaScript', path: '/wizard', js: false, ajax: false },
  { name: 'with JavaScript, full pages', path: '/wizard', js: true, ajax: false },
  { name: 'with JavaScript over ajax', path: '/wizard-ajax', js: true, ajax: true },
];

describe('browser wizard', () => {
  const demo = useDemoBrowser();

  /** Presses a submit button and waits for the next page (or, over ajax, for the form's reply). */
  const submitWith = async (page: Page, mode: Mode, press: () => Promise<void>) => {
    if (!mode.ajax) {
      await Promise.all([page.waitForEvent('load'), press()]);
      return;
    }
    await page.evaluate(() => {
      const w = window as unknown as { roostReply?: Promise<unknown> };
      w.roostReply = new Promise((done) => document.addEventListener('roost:form-result', done, { once: true }));
    });
    await press();
    await page.evaluate(() => (window as unknown as { roostReply?: Promise<unknown> }).roostReply);
  };
  const click = (page: Page, mode: Mode, selector: string) => submitWith(page, mode, () => page.click(selector));
  const currentStep = (page: Page) => page.textContent('.roost-steps [aria-current="step"]');

  for (const mode of modes) {
    test(`${mode.name}: Back and Next keep values and the upload; steps validate alone; Finish gives all`, async () => {
      const page = await demo.open(mode.path, mode.js);
      assert.equal(await currentStep(page), 'Account');
      await click(page, mode, '#wiznext\\$');
      assert.match((await page.textContent('#wiz-errors')) ?? '', /E-mail: Required/);
      assert.doesNotMatch((await page.textContent('#wiz-errors')) ?? '', /Avatar/, 'step two is not validated');
      assert.equal(await currentStep(page), 'Account');

      await page.fill('#wiz-email', 'ada@example.org');
      await page.fill('#wiz-name', 'Ada');
      // Enter in a text field goes forward (Next is the first submit button), never Back.
      await submitWith(page, mode, () => page.press('#wiz-name', 'Enter'));
      assert.equal(await currentStep(page), 'Details');
      assert.match((await page.textContent('.roost-steps li.done')) ?? '', /Account \(done\)/);
      if (mode.ajax) {
        const focused = await page.evaluate(() => document.activeElement?.getAttribute('aria-current'));
        assert.equal(focused, 'step', 'over ajax, focus goes to the step now current');
      }
      const add = 'button[name="addresses$add"]';
      if (mode.js) await page.click(add);
      else await click(page, mode, add);
      await page.fill('#wiz-addresses-0-street', 'Main St 1');
      if (mode.js) await page.click(add);
      else await click(page, mode, add);
      await page.fill('#wiz-addresses-1-street', 'Side St 2');
      await page.setInputFiles('#wiz-avatar', { name: 'me.png', mimeType: 'image/png', buffer: Buffer.from('png!') });

      await click(page, mode, '#wizback\\$');
      assert.equal(await currentStep(page), 'Account');
      assert.equal(await page.inputValue('#wiz-email'), 'ada@example.org');
      assert.equal(await page.inputValue('#wiz-name'), 'Ada');
      await click(page, mode, '#wiznext\\$');
      assert.equal(await currentStep(page), 'Details');
      assert.equal(await page.inputValue('#wiz-addresses-0-street'), 'Main St 1');
      assert.equal(await page.inputValue('#wiz-addresses-1-street'), 'Side St 2');
      assert.match((await page.textContent('#wiz-avatar-kept')) ?? '', /Kept file: me\.png \(4 B\)/);

      const before = demo.server.received.length;
      await click(page, mode, '#wizfinish\\$');
      const got = demo.server.received.slice(before) as Array<Record<string, unknown>>;
      assert.equal(got.length, 1);
      const { avatar, ...rest } = got[0] ?? {};
      assert.deepEqual(rest, {
        email: 'ada@example.org',
        name: 'Ada',
        addresses: [{ street: 'Main St 1' }, { street: 'Side St 2' }],
      });
      const file = avatar as { filename?: string; size?: number } | undefined;
      assert.deepEqual([file?.filename, file?.size], ['me.png', 4]);
      assert.match((await page.textContent('[role=status]')) ?? '', /Thank you!/);
      assert.equal(await page.locator('main').count(), 1, 'every reply replaced the form, none nested a page');
      await page.context().close();
    });
  }

  /** Goes back or forward in the browser's history; over ajax, waits for the form's reply to the step asked. */
  const travel = async (page: Page, mode: Mode, go: () => Promise<unknown>) => {
    if (mode.ajax) await submitWith(page, mode, async () => void (await go()));
    else await go();
  };

  for (const mode of modes) {
    test(`${mode.name}: the browser's Back and Forward move between the steps, and the wizard goes on`, async () => {
      const page = await demo.open(mode.path, mode.js);
      if (mode.js) await page.evaluate(() => Object.assign(window, { roostFirstPage: true }));
      await page.fill('#wiz-email', 'ada@example.org');
      await click(page, mode, '#wiznext\\$');
      assert.equal(await currentStep(page), 'Details');
      await travel(page, mode, () => page.goBack());
      assert.equal(await currentStep(page), 'Account');
      assert.equal(await page.inputValue('#wiz-email'), 'ada@example.org');
      await travel(page, mode, () => page.goForward());
      assert.equal(await currentStep(page), 'Details');
      await travel(page, mode, () => page.goBack());
      await page.fill('#wiz-email', 'bob@example.org');
      await click(page, mode, '#wiznext\\$');
      assert.equal(await currentStep(page), 'Details');
      await page.setInputFiles('#wiz-avatar', { name: 'me.png', mimeType: 'image/png', buffer: Buffer.from('png!') });
      const before = demo.server.received.length;
      await click(page, mode, '#wizfinish\\$');
      const got = demo.server.received.slice(before) as Array<{ email?: string }>;
      assert.deepEqual(
        got.map((d) => d.email),
        ['bob@example.org'],
      );
      if (mode.ajax) {
        const same = await page.evaluate(() => 'roostFirstPage' in window);
        assert.ok(same, 'over ajax every step was shown in the first page');
      }
      await page.context().close();
    });
  }

  for (const mode of modes) {
    test(`${mode.name}: a changed state in the page is refused, the wizard starts again and says so`, async () => {
      const page = await demo.open(mode.path, mode.js);
      await page.fill('#wiz-email', 'ada@example.org');
      await click(page, mode, '#wiznext\\$');
      await page.$eval('input[name="$wizard"]', (input) => {
        const el = input as HTMLInputElement;
        el.value = `x${el.value}`;
      });
      await click(page, mode, '#wizback\\$');
      assert.equal(await currentStep(page), 'Account');
      assert.match((await page.textContent('[role=alert]')) ?? '', /could not be used; please start again/);
      assert.equal(await page.locator('main').count(), 1, 'the reply replaced the form, not nested a page in it');
      assert.equal(await page.locator('form').count(), 1);
      assert.equal(await page.inputValue('#wiz-email'), '');
      await page.context().close();
    });
  }

  /** The /nested page with JavaScript on and two floors typed, Ground and First. */
  const twoFloors = async () => {
    const page = await demo.open('/nested', true);
    for (const [n, level] of ['Ground', 'First'].entries()) {
      await page.click('button[name="floors$add"]');
      await page.fill(`#nest-floors-${n}-level`, level);
    }
    return page;
  };
  /** The floors' levels in the page's order. */
  const levels = (page: Page) =>
    page.$$eval('#nest-floors > [data-roost-item] input[name$=".level"]', (els) =>
      els.map((e) => (e as HTMLInputElement).value),
    );

  test('with JavaScript: Move up by keyboard: in place, focus kept, announced, the order sent', async () => {
    const page = await twoFloors();
    // A repeat in a repeat: the inner item moves within its floor, by Space this time.
    await page.click('button[name="floors.0.rooms$add"]');
    await page.fill('#nest-floors-0-rooms-0-no', 'G1');
    await page.click('button[name="floors.0.rooms$add"]');
    await page.fill('#nest-floors-0-rooms-1-no', 'G2');
    await page.focus('#nest-floors-0-rooms > [data-roost-item]:nth-of-type(1) > button[name="floors.0.rooms$down"]');
    await page.keyboard.press('Space');
    const rooms = await page.$$eval('#nest-floors-0-rooms > [data-roost-item] input', (els) =>
      els.map((e) => (e as HTMLInputElement).value),
    );
    assert.deepEqual(rooms, ['G2', 'G1']);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLButtonElement | null)?.value), '0');
    const up = '#nest-floors [data-roost-item]:nth-of-type(2) > button[name="floors$up"]';
    await page.focus(up);
    await page.keyboard.press('Enter');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLButtonElement | null;
      return [el?.name, el?.value, el?.closest('fieldset')?.querySelector('legend')?.textContent];
    });
    assert.deepEqual(focused, ['floors$up', '1', 'Floor 1'], 'focus stays on the pressed button, now in item 1');
    assert.equal(await page.textContent('#nest-floors > [data-roost-announce]'), 'Floor moved to position 1 of 2');
    assert.deepEqual(await levels(page), ['First', 'Ground']);
    const before = demo.server.received.length;
    await Promise.all([page.waitForEvent('load'), page.click('#nestsend\\$')]);
    const floors = (demo.server.received[before] as { floors?: unknown }).floors;
    assert.deepEqual(floors, [
      { level: 'First', rooms: [] },
      { level: 'Ground', rooms: [{ no: 'G2' }, { no: 'G1' }] },
    ]);
    await page.context().close();
  });

  test('with JavaScript: an item dragged by its legend with the pointer moves there, announced', async () => {
    const page = await twoFloors();
    await page.dragAndDrop(
      '#nest-floors > [data-roost-item]:nth-of-type(2) > legend',
      '#nest-floors > [data-roost-item]:nth-of-type(1) > legend',
    );
    assert.deepEqual(await levels(page), ['First', 'Ground']);
    assert.equal(await page.textContent('#nest-floors > [data-roost-announce]'), 'Floor moved to position 1 of 2');
    await page.context().close();
  });

  test('without JavaScript: Move up by keyboard is a submit: the page comes back with the items swapped', async () => {
    const page = await demo.open('/nested', false);
    for (const n of [0, 1]) {
      await Promise.all([page.waitForEvent('load'), page.click('button[name="floors$add"]')]);
      await page.fill(`#nest-floors-${n}-level`, ['Ground', 'First'][n] ?? '');
    }
    await page.focus('#nest-floors [data-roost-item]:nth-of-type(2) > button[name="floors$up"]');
    await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
    assert.equal(await page.inputValue('#nest-floors-0-level'), 'First');
    assert.equal(await page.inputValue('#nest-floors-1-level'), 'Ground');
    await page.context().close();
  });
});
