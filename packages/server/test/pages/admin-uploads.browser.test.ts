import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Request, Route } from 'playwright-core';
import { axeViolations, launchBrowser, screenshot, signedInContext } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The admin's uploads by tus (issue 41, item 4; admin/upload-script.ts) in Debian's chromium:
 * the file store page's upload sends its file in parts with a `<progress>` that advances (axe
 * clean while it shows), the entry appears, the bytes read back the same; cut midway, the page
 * reloaded and the same file chosen again, the upload goes on from the server's offset; the
 * record form's file field goes by tus too; without JavaScript the plain form still uploads.
 * SQLite pass only (the protocol on both databases and S3: http/filestore-resumable.test.ts).
 */
const SUITE = 'admin-uploads';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

/** The script's part size (admin/upload-script.ts `CHUNK`): the file is a part and a fifth. */
const PART = 4 * 1024 * 1024;
const SIZE = PART + 800 * 1024 + 7;
const bytes = Buffer.from(Uint8Array.from({ length: SIZE }, (_, i) => (i * 31 + 7) % 251));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const isPatch = (r: Request) => r.method() === 'PATCH' && r.url().includes('/files/@uploads/');

describe('the admin uploads by tus', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let token: string;
  let dir: string;
  /** The file on disk, so that chromium gives it the same name, size and time each time it is chosen. */
  let bigFile: string;

  before(async () => {
    s = await startServer({
      fileStores: { files: { maxFileBytes: 64 * 1024 * 1024 }, tiny: { maxFileBytes: 1024 * 1024 } },
    });
    token = await s.adminToken();
    dir = await mkdtemp(join(tmpdir(), 'roost-admin-uploads-'));
    bigFile = join(dir, 'big.bin');
    await writeFile(bigFile, bytes);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The file's SHA-256 as Roost serves it back. */
  async function servedHash(path: string): Promise<string> {
    const res = await fetch(`${s.url}/files/${path}`, { headers: { 'x-auth-token': token } });
    assert.equal(res.status, 200, `GET ${path}`);
    return sha256(Buffer.from(await res.arrayBuffer()));
  }

  test('the file store page: parts by tus, a <progress> that advances, the entry appears, axe clean', async () => {
    // Roost's CSP is bypassed only to inject axe-core; the next test runs the script under it.
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD, { bypassCSP: true });
    const page = await context.newPage();
    // The test's functions run through tsx, whose names helper the page lacks.
    await page.addInitScript('globalThis.__name = (f) => f;');
    await page.goto('/admin/files/files/');
    // The second part waits until the test has looked at the page mid-upload.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let patches = 0;
    /** While set, every PATCH waits for it (the Cancel below). */
    let gate: Promise<void> | null = null;
    await page.route('**/files/@uploads/*', async (route: Route) => {
      if (isPatch(route.request())) {
        if (++patches === 2) await held;
        if (gate) await gate;
      }
      // A request the page cancelled meanwhile has nothing to continue.
      await route.continue().catch(() => undefined);
    });
    // Every value the bar shows, as the page shows it.
    await page.evaluate(() => {
      const seen: number[] = [];
      (globalThis as unknown as { seen: number[] }).seen = seen;
      const bar = document.querySelector('.upload-panel progress');
      if (!bar) throw new Error('no <progress> on the page');
      new MutationObserver(() => seen.push((bar as HTMLProgressElement).value)).observe(bar, { attributes: true });
    });
    await page.setInputFiles('#upload-form-file', bigFile);
    await page.click('#upload-formupload\\$');
    const bar = page.getByRole('progressbar', { name: 'Upload of “big.bin”' });
    await bar.waitFor();
    await page.waitForFunction(
      () => (document.querySelector('.upload-panel progress') as HTMLProgressElement).value >= 40,
    );
    const midway = await bar.evaluate((b) => ({
      value: (b as HTMLProgressElement).value,
      text: b.getAttribute('aria-valuetext'),
      shown: document.querySelector('.upload-percent')?.textContent,
    }));
    assert.ok(midway.value >= 40 && midway.value < 100, JSON.stringify(midway));
    assert.match(midway.text ?? '', /^\d+ % \(\d+\.\d MB of 4\.8 MB\)$/);
    assert.equal(midway.shown, midway.text);
    assert.deepEqual(await axeViolations(page), [], 'axe, mid-upload');
    await screenshot(page, SUITE, 'file-store-uploading');
    release();
    await page.getByRole('status').filter({ hasText: 'Uploaded “big.bin” (4.8 MB).' }).waitFor();
    // The directory's table is a live region (admin/live-script.ts): the new entry comes without a reload.
    await page.locator('table').getByRole('link', { name: 'big.bin', exact: true }).waitFor({ timeout: 15_000 });
    const seen = await page.evaluate(() => (globalThis as unknown as { seen: number[] }).seen);
    assert.ok(seen.length >= 3, `the bar moved: ${JSON.stringify(seen)}`);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
      'it only goes forward',
    );
    assert.equal(seen.at(-1), 100);
    assert.ok(patches >= 2, `in parts: ${patches} PATCH requests`);
    assert.equal(await servedHash('big.bin'), sha256(bytes));
    await screenshot(page, SUITE, 'file-store-uploaded');

    // "Replace" unticked: an existing name is refused in words before a byte is sent.
    const before = patches;
    await page.setInputFiles('#upload-form-file', bigFile);
    await page.click('#upload-formupload\\$');
    await page.getByRole('alert').filter({ hasText: 'A file or directory of this name exists here' }).waitFor();
    assert.equal(patches, before);

    // Cancel while a part is on its way: said in words, the stored file untouched, the form usable again.
    let open = () => {};
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    await page.fill('#upload-form-name', 'big.bin');
    await page.check('#upload-form-replace');
    await page.setInputFiles('#upload-form-file', {
      name: 'other.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.alloc(SIZE, 1),
    });
    await page.click('#upload-formupload\\$');
    await page.getByRole('progressbar', { name: 'Upload of “other.bin”' }).waitFor();
    for (let i = 0; i < 200 && patches === before; i++) await new Promise((r) => setTimeout(r, 50));
    await page.getByRole('button', { name: 'Cancel upload' }).click();
    await page.getByRole('alert').filter({ hasText: 'The upload was cancelled.' }).waitFor();
    open();
    gate = null;
    assert.equal(await page.locator('.upload-progress').isHidden(), true);
    assert.equal(await page.locator('#upload-formupload\\$').isEnabled(), true);
    assert.equal(await servedHash('big.bin'), sha256(bytes), 'nothing of the cancelled upload was kept');

    // The server's refusal, in its words: a file over the store's limit, refused at the creation.
    await page.goto('/admin/files/tiny/');
    await page.setInputFiles('#upload-form-file', bigFile);
    await page.click('#upload-formupload\\$');
    await page.getByRole('alert').filter({ hasText: 'The file is larger than this store allows' }).waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe, with a refusal');
    await context.close();
  });

  test('cut midway, the page reloaded, the same file chosen again: it goes on from the offset', async () => {
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('/admin/files/files/');
    // The first part goes through; every later PATCH is cut (a dropped link), until the reload.
    let cutting = true;
    let cut = 0;
    const sent: Array<{ offset: number; bytes: number }> = [];
    await page.route('**/files/@uploads/*', async (route: Route) => {
      const request = route.request();
      if (!isPatch(request)) return route.continue();
      const offset = Number(request.headers()['upload-offset']);
      if (cutting && offset > 0) {
        cut++;
        return route.abort('connectionreset');
      }
      sent.push({ offset, bytes: request.postDataBuffer()?.length ?? 0 });
      return route.continue();
    });
    await page.fill('#upload-form-name', 'resumed.bin');
    await page.setInputFiles('#upload-form-file', bigFile);
    await page.click('#upload-formupload\\$');
    for (let i = 0; i < 200 && cut === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(cut > 0, 'the second part was cut');
    assert.deepEqual(sent, [{ offset: 0, bytes: PART }], 'one part reached the server');

    await page.reload();
    cutting = false;
    sent.length = 0;
    await page.fill('#upload-form-name', 'resumed.bin');
    await page.setInputFiles('#upload-form-file', bigFile);
    await page.click('#upload-formupload\\$');
    await page.getByRole('status').filter({ hasText: 'Uploaded “resumed.bin”' }).waitFor();
    assert.equal(sent[0]?.offset, PART, `resumed from the server's offset: ${JSON.stringify(sent)}`);
    const after = sent.reduce((n, p) => n + p.bytes, 0);
    assert.equal(after, SIZE - PART, 'only the rest was sent');
    assert.equal(await servedHash('resumed.bin'), sha256(bytes));
    // The upload's URL is forgotten once done: the next upload of this file starts afresh.
    const kept = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('tus::')));
    assert.deepEqual(kept, []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test("the record form's file field goes by tus, the record gets its path", async () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, attachment: { type: 'string', 'x-file': 'files' } },
      required: ['title'],
    };
    await s.request('/api/collections', { name: 'docs', schema, rules: {} }, { method: 'POST', token });
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD);
    const page = await context.newPage();
    const patches: Request[] = [];
    page.on('request', (r) => {
      if (isPatch(r)) patches.push(r);
    });
    await page.goto('/admin/collections/docs/new');
    await page.fill('#record-form-title', 'The big one');
    await page.setInputFiles('#record-form-attachment-upload', bigFile);
    await page.click('#record-formsave\\$');
    await page.waitForURL(/\/admin\/collections\/docs\/records\/[0-9a-f-]+$/);
    assert.match(await page.locator('.messages').innerText(), /created/);
    assert.equal(patches.length, 2, 'two parts by tus');
    const id = page.url().split('/').pop() ?? '';
    const record = (await s.request(`/api/collections/docs/records/${id}`, undefined, { token })).body;
    assert.match(record.attachment, /^docs\/[0-9a-f]{8}-big\.bin$/);
    assert.equal(await servedHash(record.attachment), sha256(bytes));
    await context.close();
  });

  test('without JavaScript the plain form uploads as before', async () => {
    const context = await signedInContext(browser, s.url, 'admin', PASSWORD, { javaScriptEnabled: false });
    const page = await context.newPage();
    let tus = 0;
    page.on('request', (r) => {
      if (r.url().includes('/@uploads')) tus++;
    });
    await page.goto('/admin/files/files/');
    await page.setInputFiles('#upload-form-file', {
      name: 'plain.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('no script'),
    });
    await page.click('#upload-formupload\\$');
    await page.locator('.messages', { hasText: 'Uploaded “plain.txt”' }).waitFor();
    await page.locator('table').getByRole('link', { name: 'plain.txt', exact: true }).waitFor();
    assert.equal(tus, 0);
    const res = await fetch(`${s.url}/files/plain.txt`, { headers: { 'x-auth-token': token } });
    assert.equal(await res.text(), 'no script');
    await context.close();
  });
});
