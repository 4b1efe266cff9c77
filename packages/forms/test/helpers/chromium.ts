/* Debian's chromium through playwright-core, the way every browser test of the form library
   starts it (CI installs the package; no browser is ever downloaded). */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
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
export function useDemoBrowser(): { browser: Browser; server: DemoServer } {
  const state = {} as { browser: Browser; server: DemoServer };
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
