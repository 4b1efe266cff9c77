/* Debian's chromium through playwright-core, the way every browser test of the form library
   starts it (CI installs the package; no browser is ever downloaded). */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
