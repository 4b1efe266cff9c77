/* Debian's chromium through playwright-core, the way every browser test of the form library
   starts it (CI installs the package; no browser is ever downloaded). */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDemoServer, type DemoServer } from './demo-server.js';

const executablePath = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  assert.ok(
    existsSync(executablePath),
    `${executablePath} is missing: apt-get install -y --no-install-recommends chromium`,
  );
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * The demo server and chromium for a file's browser tests: started before them, closed after.
 * Read the fields inside the tests (they are set by the `before` hook).
 */
export interface DemoBrowser {
  browser: Browser;
  server: DemoServer;
  /** A page of the demo server at `path`, in a context of its own with JavaScript on or off. */
  open(path: string, javaScriptEnabled: boolean): Promise<Page>;
}

export function useDemoBrowser(): DemoBrowser {
  const state = {
    async open(path: string, javaScriptEnabled: boolean): Promise<Page> {
      const context = await state.browser.newContext({ javaScriptEnabled });
      const page = await context.newPage();
      await page.goto(`${state.server.url}${path}`);
      return page;
    },
  } as DemoBrowser;
  before(async () => {
    state.server = await startDemoServer();
    state.browser = await launchChromium();
  });
  after(async () => {
    await state.browser?.close();
    await state.server?.close();
  });
  return state;
}
