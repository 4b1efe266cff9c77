import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's chromium driven by playwright-core, for the page and connector tests. Fails with a
 * clear message when /usr/bin/chromium is missing (CI installs it); never downloads a browser.
 */
const CHROMIUM = '/usr/bin/chromium';
const root = new URL('../../../../', import.meta.url).pathname;

/** Debian's chromium, headless; `extraArgs` for a test's own switches (a host mapping, say). */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  // Without the background-networking flag chromium keeps dialling Google's hosts, which this
  // machine refuses.
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...extraArgs],
  });
}

/** The folder of a suite's screenshots, `test-artifacts/<suite>/` at the repository root (ignored by git). */
function artifactsDir(suite: string): string {
  const dir = join(root, 'test-artifacts', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A full-page PNG of `page` as `test-artifacts/<suite>/<name>.png` (its path), for people to look at: no
 * test reads them. With ROOST_TEST_SCREENSHOTS=0 (.ci/run, where nobody looks at them) none is written:
 * each is a render and a PNG encoding of the whole page in chromium.
 */
export async function screenshot(page: Page, suite: string, name: string): Promise<string> {
  const path = join(artifactsDir(suite), `${name}.png`);
  if (process.env.ROOST_TEST_SCREENSHOTS !== '0') await page.screenshot({ path, fullPage: true });
  return path;
}

/** Laptop and phone viewports, for pages that must look tidy on both. */
export const VIEWPORTS = {
  laptop: { width: 1366, height: 768 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * A browser context signed in as `identity` through the API's `signin` (the HttpOnly `auth`
 * cookie lands in the context, as it would for a user).
 */
export async function signedInContext(
  browser: Browser,
  baseUrl: string,
  identity: string,
  password: string,
  options: {
    viewport?: { width: number; height: number };
    colorScheme?: 'light' | 'dark';
    /** For a test that injects a script (axe-core) into pages under Roost's CSP. */
    bypassCSP?: boolean;
    javaScriptEnabled?: boolean;
  } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: baseUrl, ...options });
  const res = await context.request.post('/users/api/signin', { data: { identity, password } });
  assert.equal(res.status(), 200, `signin of ${identity}: ${await res.text()}`);
  return context;
}

/**
 * A page of `identity`'s on a laptop and one on a phone (`VIEWPORTS`), for suites that photograph
 * each page on both. Every dialog either opens (a page that ran script from stored text would)
 * is dismissed and its message added to `dialogs`, which the suite expects to stay empty.
 */
export async function laptopAndPhonePages(
  browser: Browser,
  baseUrl: string,
  identity: string,
  password: string,
  dialogs: string[],
): Promise<{ laptop: BrowserContext; page: Page; phonePage: Page }> {
  const laptop = await signedInContext(browser, baseUrl, identity, password, { viewport: VIEWPORTS.laptop });
  const phone = await signedInContext(browser, baseUrl, identity, password, { viewport: VIEWPORTS.phone });
  const page = await laptop.newPage();
  const phonePage = await phone.newPage();
  for (const p of [page, phonePage])
    p.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  return { laptop, page, phonePage };
}

/**
 * A virtual authenticator of the DevTools protocol in `page` (passkeys without a device): a
 * platform authenticator with resident keys that verifies the user and is touched at once.
 */
export async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * axe-core's WCAG 2.1 A and AA violations of the page, each as `rule: help (targets)`. The page's
 * context bypasses Roost's CSP (`signedInContext`'s `bypassCSP`) for the script to be injected.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axeSource });
  const violations = (await page.evaluate(async () => {
    type Axe = { run(c: unknown, o: unknown): Promise<{ violations: unknown }> };
    const axe = (window as unknown as { axe: Axe }).axe;
    return (await axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] })).violations;
  })) as Array<{ id: string; help: string; nodes: Array<{ target: string[] }> }>;
  return violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
