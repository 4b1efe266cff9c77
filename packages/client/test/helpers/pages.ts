import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { Browser, Page } from 'playwright-core';

export { launchBrowser, screenshot } from '../../../server/test/helpers/browser.js';

/**
 * Bundle a test page's script (TypeScript) for the browser with esbuild, React or Vue included.
 * With `coreFromServer`, imports of the core (`src/index.ts`) stay imports of
 * `/static/roost-client.js`, so the page runs the bundle Roost serves.
 */
export async function bundlePage(entry: URL, options: { coreFromServer?: boolean } = {}): Promise<string> {
  const core = fileURLToPath(new URL('../../src/index.js', import.meta.url));
  const served: Plugin = {
    name: 'core-from-server',
    setup(b) {
      b.onResolve({ filter: /index\.js$/ }, (args) => (resolve(args.resolveDir, args.path) === core ? { path: '/static/roost-client.js', external: true } : undefined));
    },
  };
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    minify: true,
    define: {
      'process.env.NODE_ENV': '"production"',
      __VUE_OPTIONS_API__: 'false',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    plugins: options.coreFromServer ? [served] : [],
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

export interface TestPage {
  page: Page;
  /** Uncaught errors of the page (none expected). */
  errors: Error[];
  close(): Promise<void>;
}

/**
 * A page on Roost's own origin (so the `auth` cookie is first-party and same-site): the HTML
 * and the test script are answered by the browser's request interception, everything else by
 * the real server.
 */
export async function openPage(browser: Browser, baseUrl: string, parts: { html?: string; script?: string }): Promise<TestPage> {
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  // tsx compiles functions handed to page.evaluate with esbuild's keepNames, which calls `__name`.
  const shim = '<script>window.__name = (f) => f;</script>';
  const html = parts.html ?? `<!doctype html><html><head><meta charset="utf-8"><title>test</title></head><body><div id="app"></div><script type="module" src="/__test__/page.js"></script></body></html>`;
  await page.route(`${baseUrl}/__test__/page.html`, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html.replace('<head>', `<head>${shim}`) }));
  if (parts.script !== undefined) {
    const script = parts.script;
    await page.route(`${baseUrl}/__test__/page.js`, (route) => route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: script }));
  }
  await page.goto('/__test__/page.html');
  return {
    page,
    errors,
    close: () => context.close(),
  };
}

/**
 * Run `work` with the page's uploads slowed to `bytesPerSecond` (chromium's network emulation),
 * so an upload on 127.0.0.1 lasts long enough to report progress more than once.
 */
export async function withSlowUploads<T>(page: Page, bytesPerSecond: number, work: () => Promise<T>): Promise<T> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
  try {
    return await work();
  } finally {
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await cdp.detach();
  }
}

/** No uncaught error in the page. */
export function assertNoPageErrors(testPage: TestPage): void {
  assert.deepEqual(testPage.errors.map((e) => e.message), []);
}
