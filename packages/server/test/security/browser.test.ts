import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchBrowser, signedInContext } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The headers and the CSRF rule, seen by a real browser (Debian's chromium): the pages' CSP
 * lets /docs work, an uploaded HTML file runs no script on Roost's origin, and a page on
 * another site cannot make a signed-in browser change anything.
 */
// Headers and CSRF do not depend on the database: the PostgreSQL pass leaves this to the SQLite one.
const skip =
  process.env.ROOST_TEST_DIALECT === 'postgres' ? 'the same on both databases (runs in the SQLite pass)' : false;

describe('web security in a real browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let evil: Server;
  let evilUrl: string;
  let token: string;
  before(async () => {
    s = await startServer();
    token = await s.createUser('alice');
    browser = await launchBrowser();
    // Another site: `localhost` is not the same site as Roost's `127.0.0.1`.
    evil = createServer((req, res) => {
      const target = s.url;
      const pages: Record<string, string> = {
        '/form':
          `<form id="f" method="post" action="${target}/users/api/update">` +
          '<input name="realname" value="forged-by-form"></form>' +
          `<script>document.getElementById('f').submit()</script>`,
        '/fetch':
          `<script>fetch('${target}/users/api/update', { method: 'POST', credentials: 'include', headers: { ` +
          `'content-type': 'text/plain' }, body: 'realname=forged-by-fetch' }).then(() => document.title = 'sent', ` +
          `() => document.title = 'sent')</script>`,
        '/link': `<script>location.href = '${target}/users/api/update?realname=forged-by-link'</script>`,
        '/img':
          `<img src="${target}/users/api/update?realname=forged-by-img" ` +
          `onerror="document.title='sent'" onload="document.title='sent'">`,
      };
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><title>evil</title>${pages[req.url ?? ''] ?? ''}`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser.close();
    await new Promise((resolve) => evil.close(resolve));
    await s.close();
  });

  test("/docs renders under the pages' CSP without a single violation", async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    const res = await page.goto(`${s.url}/docs/`);
    assert.match(res?.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 30_000 });
    assert.deepEqual(violations, []);
    await page.close();
  });

  test('an uploaded HTML file opened in the browser runs no script and reaches no cookie', async () => {
    const page =
      `<!doctype html><title>upload</title><script>document.title = 'pwned:' + document.cookie; ` +
      `fetch('/users/api/profile')</script>`;
    assert.equal(
      (await s.request('/files/@newItem', { name: 'page.html', contents: page, mime: 'text/html' }, { token })).status,
      200,
    );
    const context = await signedInContext(browser, s.url, 'alice', PASSWORD);
    const tab = await context.newPage();
    const requests: string[] = [];
    tab.on('request', (r) => requests.push(r.url()));
    await tab.goto(`${s.url}/files/page.html`);
    await tab.waitForTimeout(300);
    assert.equal(await tab.title(), 'upload');
    assert.deepEqual(
      requests.filter((u) => u.includes('/users/api/')),
      [],
    );
    await context.close();
  });

  test("a page on another site cannot change a signed-in user's data: form post, fetch, link, image", async () => {
    const context = await signedInContext(browser, s.url, 'alice', PASSWORD);
    const realname = async () => (await s.users('profile', {}, { token })).body.realname as string;
    const before = await realname();
    const isRoost = (url: string) => url.startsWith(`${s.url}/users/api/update`);
    for (const path of ['/form', '/link', '/fetch', '/img']) {
      const tab = await context.newPage();
      const navigates = path === '/form' || path === '/link';
      const sent = tab.waitForRequest((r) => isRoost(r.url()), { timeout: 15_000 });
      const answer = navigates ? tab.waitForResponse((r) => isRoost(r.url()), { timeout: 15_000 }) : null;
      await tab.goto(evilUrl + path);
      await sent;
      if (answer) {
        // Lax kept the cookie from the cross-site form post (401); the navigation carried it,
        // and the CSRF rule refused it (403).
        assert.equal((await answer).status(), path === '/link' ? 403 : 401, path);
      } else {
        // A fetch or an image: the answer is not the page's to read; wait until it has come.
        await tab.waitForFunction(() => document.title === 'sent', undefined, { timeout: 15_000 });
      }
      await tab.close();
      assert.equal(await realname(), before, `${path} changed the profile`);
    }
    // The same browser, on Roost's own origin, may (the cookie works).
    const own = await context.newPage();
    await own.goto(`${s.url}/docs/`);
    const status = await own.evaluate(
      async () =>
        (
          await fetch('/users/api/update', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"realname":"own"}',
          })
        ).status,
    );
    assert.equal(status, 200);
    assert.equal(await realname(), 'own');
    await context.close();
  });
});
