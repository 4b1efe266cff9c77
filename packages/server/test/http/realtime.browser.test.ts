import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signedInContext } from '../helpers/browser.js';
import { PASSWORD, useServer } from '../helpers/test-server.js';

interface Seen {
  type: string;
  data: string;
  lastEventId: string;
}

/**
 * The browser's own EventSource in chromium (issue 21), on a page of Roost's origin: cookie mode
 * (the `auth` cookie signs the stream in, topics in the URL, and the browser's own reconnection
 * resumes with Last-Event-ID), and token mode (an EventSource cannot send a header: the page
 * posts its subscriptions with the token and the stream's client id, PocketBase's pattern).
 */
describe('live changes in chromium with EventSource', () => {
  const s = useServer();
  let browser: Browser;
  let alice: string;
  before(async () => {
    browser = await launchBrowser();
    alice = await s.createUser('alice');
  });
  after(() => browser?.close());

  /** Opens an EventSource in the page, recording every event of `names` into `window.seen`. */
  const listen = (page: Page, url: string, names: string[]) =>
    page.evaluate(
      ({ url, names }) =>
        new Promise<string>((resolve, reject) => {
          const w = window as unknown as { seen: Seen[]; source: EventSource };
          w.seen = [];
          const source = new EventSource(url);
          w.source = source;
          for (const name of names)
            source.addEventListener(name, (e) => {
              const m = e as MessageEvent<string>;
              w.seen.push({ type: m.type, data: m.data, lastEventId: m.lastEventId });
            });
          source.addEventListener('connect', (e) => resolve(JSON.parse((e as MessageEvent<string>).data).clientId));
          source.onerror = () => {
            if (source.readyState === EventSource.CLOSED) reject(new Error('the stream was refused'));
          };
        }),
      { url, names },
    );
  const seen = async (page: Page, count: number): Promise<Seen[]> => {
    await page.waitForFunction((n) => (window as unknown as { seen: Seen[] }).seen.length >= n, count, {
      timeout: 10_000,
    });
    return page.evaluate(() => (window as unknown as { seen: Seen[] }).seen);
  };

  test('cookie mode: signed in by the cookie; the browser reconnects by itself and resumes', async () => {
    const context = await signedInContext(browser, s.url, 'alice', PASSWORD);
    const page = await context.newPage();
    await page.goto('/users/signin');
    await listen(page, '/api/realtime?topic=items/data', ['items/data']);
    await s.request('/data/api/newItem', { key: 'c1', value: 'one' }, { token: alice });
    const [first] = await seen(page, 1);
    assert.equal(JSON.parse(first?.data ?? '{}').item.value, 'one');
    assert.match(first?.lastEventId ?? '', /^[0-9a-f]{8}-\d+$/);

    // The server drops every connection; EventSource comes back after `retry` with Last-Event-ID.
    s.roost.http.server.closeAllConnections();
    // This process's own kept-alive connections were dropped too: a request sent on one before
    // it has seen the close fails ("other side closed", under load), so the write waits until a
    // read has gone through.
    for (let tries = 1; ; tries++) {
      try {
        await fetch(`${s.url}/health`);
        break;
      } catch (err) {
        if (tries === 20) throw err;
      }
    }
    await s.request('/data/api/newItem', { key: 'c2', value: 'two' }, { token: alice });
    const events = await seen(page, 2);
    assert.deepEqual(
      events.map((e) => JSON.parse(e.data).key),
      ['c1', 'c2'],
    );
    await context.close();
  });

  test('token mode: the stream opens without a token and takes the one its subscriptions are posted with', async () => {
    const context = await browser.newContext({ baseURL: s.url });
    const page = await context.newPage();
    await page.goto('/users/signin');
    const clientId = await listen(page, '/api/realtime', ['items/data', 'account']);
    const status = await page.evaluate(
      async ({ clientId, token }) => {
        const res = await fetch('/api/realtime', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-auth-token': token },
          body: JSON.stringify({ clientId, topics: ['items/data', 'account'] }),
        });
        return res.status;
      },
      { clientId, token: alice },
    );
    assert.equal(status, 200);
    await s.request('/data/api/newItem', { key: 't1', value: 'by token' }, { token: alice });
    await s.users('update', { realname: 'Alice Live' }, { token: alice });
    const events = await seen(page, 2);
    assert.deepEqual(
      events.map((e) => [e.type, JSON.parse(e.data).event]),
      [
        ['items/data', 'item.created'],
        ['account', 'account.changed'],
      ],
    );
    await context.close();
  });
});
