import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { addVirtualAuthenticator, launchBrowser } from '../../../server/test/helpers/browser.js';

export { launchBrowser, screenshot } from '../../../server/test/helpers/browser.js';

/** Source text to bundle, as a file of `dir` would be (so its imports resolve from there). */
export interface PageSource {
  contents: string;
  loader: 'ts' | 'js' | 'jsx' | 'tsx';
  dir: string;
}

/**
 * Bundle a page's script for the browser with esbuild, React or Vue included: a file, or
 * source text (a code block of the docs). `vueFullBuild` bundles Vue with its template
 * compiler, for components with string templates.
 */
export async function bundlePage(entry: URL | PageSource, options: { vueFullBuild?: boolean } = {}): Promise<string> {
  const result = await build({
    ...(entry instanceof URL
      ? { entryPoints: [fileURLToPath(entry)] }
      : {
          stdin: {
            contents: entry.contents,
            loader: entry.loader,
            resolveDir: entry.dir,
            sourcefile: `page.${entry.loader}`,
          },
        }),
    bundle: true,
    // `@roost/client` of a docs example from its sources, as every test sees it (scripts/build.mjs).
    conditions: ['roost-source'],
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    write: false,
    minify: true,
    define: {
      'process.env.NODE_ENV': '"production"',
      __VUE_OPTIONS_API__: options.vueFullBuild ? 'true' : 'false',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    ...(options.vueFullBuild ? { alias: { vue: 'vue/dist/vue.esm-bundler.js' } } : {}),
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
export async function openPage(
  browser: Browser,
  baseUrl: string,
  parts: { html?: string; script?: string },
): Promise<TestPage> {
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  // tsx compiles functions handed to page.evaluate with esbuild's keepNames, which calls `__name`.
  const shim = '<script>window.__name = (f) => f;</script>';
  const html =
    parts.html ??
    '<!doctype html><html><head><meta charset="utf-8"><title>test</title></head><body><div id="app"></div>' +
      '<script type="module" src="/__test__/page.js"></script></body></html>';
  await page.route(`${baseUrl}/__test__/page.html`, (route) =>
    route.fulfill({ contentType: 'text/html; charset=utf-8', body: html.replace('<head>', `<head>${shim}`) }),
  );
  if (parts.script !== undefined) {
    const script = parts.script;
    await page.route(`${baseUrl}/__test__/page.js`, (route) =>
      route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: script }),
    );
  }
  await page.goto('/__test__/page.html');
  return {
    page,
    errors,
    close: () => context.close(),
  };
}

/**
 * Chromium on the bundle's page (`BUNDLE_PAGE`) at `site`, an `http://localhost:<port>` address:
 * WebAuthn needs a host name as its relying party, and the browser maps `localhost` to 127.0.0.1,
 * where the test server answers. Ready once the bundle is, with the DevTools protocol's virtual
 * authenticator for passkeys. The caller closes both.
 */
export async function openPasskeyPage(site: string): Promise<{ browser: Browser; tp: TestPage }> {
  const browser = await launchBrowser(['--host-resolver-rules=MAP localhost 127.0.0.1']);
  try {
    const tp = await openPage(browser, site, { html: BUNDLE_PAGE });
    await tp.page.waitForSelector('body[data-ready=yes]', { state: 'attached' });
    await addVirtualAuthenticator(tp.page);
    return { browser, tp };
  } catch (err) {
    await browser.close();
    throw err;
  }
}

/**
 * Run `work` with the page's uploads slowed to `bytesPerSecond` (chromium's network emulation),
 * so an upload on 127.0.0.1 lasts long enough to report progress more than once.
 */
export async function withSlowUploads<T>(page: Page, bytesPerSecond: number, work: () => Promise<T>): Promise<T> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
  try {
    return await work();
  } finally {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await cdp.detach();
  }
}

/** No uncaught error in the page. */
export function assertNoPageErrors(testPage: TestPage): void {
  assert.deepEqual(
    testPage.errors.map((e) => e.message),
    [],
  );
}

type Roost = typeof import('../../src/index.js');

/** What the bundle page's module script leaves on `window`. */
export interface BundleGlobals {
  roost: Roost;
  /** `<service>.<operation>` of every success, from the connectors' `onSuccess`. */
  called: string[];
  track(service: string): { onSuccess(operation: string): void };
}

/** A page that loads the served bundle with a plain module script, as an app's page would. */
export const BUNDLE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Roost connector</title></head>
<body>
<script type="module">
  import * as roost from '/static/roost-client.js';
  window.roost = roost;
  window.called = [];
  window.track = (service) => ({ onSuccess: (operation) => window.called.push(service + '.' + operation) });
  document.body.dataset.ready = 'yes';
</script>
</body></html>`;
