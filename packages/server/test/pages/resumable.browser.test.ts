import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Resumable uploads (tus, docs/filestore.md "Resumable uploads (tus)") from Debian's chromium
 * with the browser libraries people use, unchanged: Uppy with its tus plugin, and tus-js-client
 * cut off in the middle of an upload and resumed from where the server says it stands. The
 * files read back byte for byte. SQLite pass only (the protocol on both databases and on S3:
 * http/filestore-resumable.test.ts).
 */
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;
const require = createRequire(import.meta.url);

/** Bytes the page makes the same way (a byte of index i is (i * 31 + 7) mod 251). */
const SIZE = 3 * 1024 * 1024 + 123;
const expected = createHash('sha256')
  .update(Uint8Array.from({ length: SIZE }, (_, i) => (i * 31 + 7) % 251))
  .digest('hex');

describe('resumable uploads from the browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let token: string;

  before(async () => {
    s = await startServer({ fileStores: { files: { maxFileBytes: 64 * 1024 * 1024 } } });
    token = await s.createUser('ulla');
    await s.request(
      '/files/@setPermissions',
      {
        permissions: [{ permission: 'newItem', groups: ['sys:authenticated'], action: 'replace' }],
      },
      { method: 'POST', token: await s.adminToken() },
    );
    // Uppy's core and tus plugin, bundled for the page as an app's bundler would.
    const uppy = await build({
      stdin: {
        contents:
          "import Uppy from '@uppy/core'; import Tus from '@uppy/tus';\n" +
          'globalThis.Uppy = Uppy; globalThis.UppyTus = Tus;',
        resolveDir: new URL('.', import.meta.url).pathname,
      },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
    });
    const tusClient = await readFile(require.resolve('tus-js-client/dist/tus.min.js'), 'utf8');
    browser = await launchBrowser();
    page = await (await browser.newContext({ baseURL: s.url })).newPage();
    // The test's functions run through tsx, whose names helper the page lacks.
    await page.addInitScript('globalThis.__name = (f) => f;');
    // A page of the server's own origin (no CORS in the way), made by the test, with both libraries.
    await page.route(`${s.url}/__upload-page`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body:
          `<!doctype html><title>uploads</title><script>${uppy.outputFiles[0]?.text ?? ''}</script>` +
          `<script>${tusClient}</script>`,
      }),
    );
    await page.goto('/__upload-page');
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  /** The file's SHA-256 as Roost serves it back. */
  async function servedHash(path: string): Promise<string> {
    const res = await fetch(`${s.url}/files/${path}`, { headers: { 'x-auth-token': token } });
    assert.equal(res.status, 200, `GET ${path}`);
    return createHash('sha256')
      .update(Buffer.from(await res.arrayBuffer()))
      .digest('hex');
  }

  test('Uppy with @uppy/tus uploads a file in chunks; it reads back byte for byte', async () => {
    const result = await page.evaluate(
      async ({ token: auth, size }) => {
        const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7) % 251);
        const g = globalThis as unknown as { Uppy: new (options: unknown) => unknown; UppyTus: unknown };
        const uppy = new g.Uppy({ autoProceed: false }) as {
          use(plugin: unknown, options: unknown): unknown;
          addFile(file: unknown): string;
          upload(): Promise<{ successful?: unknown[]; failed?: Array<{ error?: unknown }> }>;
        };
        uppy.use(g.UppyTus, {
          endpoint: `${location.origin}/files/@uploads`,
          headers: { authorization: `Bearer ${auth}` },
          chunkSize: 512 * 1024,
        });
        uppy.addFile({ name: 'from-uppy.bin', type: 'application/octet-stream', data: new Blob([bytes]) });
        const outcome = await uppy.upload();
        return { ok: outcome.successful?.length ?? 0, failed: (outcome.failed ?? []).map((f) => String(f.error)) };
      },
      { token, size: SIZE },
    );
    assert.deepEqual(result, { ok: 1, failed: [] });
    assert.equal(await servedHash('from-uppy.bin'), expected);
  });

  test('tus-js-client cut off midway resumes from the offset the server kept', async () => {
    const result = await page.evaluate(
      async ({ token: auth, size }) => {
        const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7) % 251);
        const file = new Blob([bytes]);
        type TusUpload = {
          start(): void;
          abort(): Promise<void>;
          url: string | null;
          findPreviousUploads(): Promise<unknown[]>;
          resumeFromPreviousUpload(previous: unknown): void;
        };
        const tus = (globalThis as unknown as { tus: { Upload: new (f: Blob, o: unknown) => TusUpload } }).tus;
        const options = (onProgress: (sent: number) => void, done: () => void, fail: (e: unknown) => void) => ({
          endpoint: `${location.origin}/files/@uploads`,
          headers: { authorization: `Bearer ${auth}` },
          chunkSize: 256 * 1024,
          metadata: { filename: 'from-tus.bin', filetype: 'application/octet-stream' },
          onProgress,
          onSuccess: done,
          onError: fail,
        });
        // The first try stops itself once a third has gone (a closed laptop, a dropped link).
        let cutAt = 0;
        await new Promise<void>((resolve, reject) => {
          const first: TusUpload = new tus.Upload(
            file,
            options(
              (sent) => {
                if (sent > size / 3 && cutAt === 0) {
                  cutAt = sent;
                  void first.abort().then(resolve);
                }
              },
              () => reject(new Error('finished before the cut')),
              reject,
            ),
          );
          first.start();
        });
        // The second try finds the upload by the file's fingerprint and asks the server its offset.
        let resumedFrom = -1;
        await new Promise<void>((resolve, reject) => {
          const second: TusUpload = new tus.Upload(
            file,
            options(
              (sent) => {
                if (resumedFrom < 0) resumedFrom = sent;
              },
              resolve,
              reject,
            ),
          );
          void second.findPreviousUploads().then((previous) => {
            if (previous.length === 0) return reject(new Error('no previous upload found'));
            second.resumeFromPreviousUpload(previous[0]);
            second.start();
          });
        });
        return { cutAt, resumedFrom };
      },
      { token, size: SIZE },
    );
    assert.ok(result.cutAt > 0 && result.cutAt < SIZE, JSON.stringify(result));
    assert.ok(result.resumedFrom > result.cutAt / 2, `resumed, not started again: ${JSON.stringify(result)}`);
    assert.equal(await servedHash('from-tus.bin'), expected);
  });
});
