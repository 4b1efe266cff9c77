import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { tsImport } from 'tsx/esm/api';
import { collection, filestore } from '../src/index.js';
import { assertNoPageErrors, bundlePage, launchBrowser, openPage, type TestPage } from './helpers/pages.js';
import type { TestServer } from './helpers/roost.js';
import { startServer } from '../../server/test/helpers/test-server.js';

/**
 * The TypeScript examples of docs/clients.md run as written: the Node blocks in this process
 * (each `console.log(...) // value` checked), the browser page, the React app and the Vue app
 * bundled and driven in chromium, all against one Roost with the administrator the page names;
 * and those of docs/collections.md, against a Roost with the configuration that page declares.
 */

const DOC_URL = 'http://127.0.0.1:8080';
const CORE = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const TEST_DIR = fileURLToPath(new URL('.', import.meta.url));
const doc = await readFile(new URL('../../../docs/clients.md', import.meta.url), 'utf8');

/** The text of the `## <title>` section of `text`. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}`);
  assert.ok(start >= 0, `no section ${title}`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);
}

/** `console.log(x) // value` becomes a check that `x` shows as `value`. */
const LOG_CHECK = /console\.log\((.*)\)([;,]?)\s*\/\/\s*(.+)$/;

/**
 * Runs TypeScript blocks in order in this process against the Roost at `url`, from the folder
 * `work`, each `console.log(...) // value` checked; answers how many were.
 */
async function runNodeBlocks(code: string[], url: string, work: string): Promise<number> {
  const checks: string[] = [];
  const check = (expected: string, ...values: unknown[]) => {
    checks.push(expected);
    assert.equal(values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' '), expected);
  };
  (globalThis as { __docCheck?: typeof check }).__docCheck = check;
  let expected = 0;
  const here = process.cwd();
  process.chdir(work);
  try {
    for (const [i, block] of code.entries()) {
      const source = block
        .replaceAll(DOC_URL, url)
        .replaceAll("from '@roost/client'", `from ${JSON.stringify(pathToFileURL(CORE).href)}`)
        .split('\n')
        .map((line) => {
          const found = LOG_CHECK.exec(line);
          if (!found) return line;
          expected++;
          return line.replace(LOG_CHECK, `globalThis.__docCheck(${JSON.stringify(found[3])}, ${found[1]})${found[2]}`);
        })
        .join('\n');
      const file = join(work, `block-${Date.now()}-${i}.mts`);
      await writeFile(file, source);
      // TypeScript, as a reader runs it: through tsx for this import only (scripts/test.mjs runs
      // the test files compiled, without a loader).
      await tsImport(pathToFileURL(file).href, import.meta.url);
    }
  } finally {
    process.chdir(here);
  }
  assert.equal(checks.length, expected);
  return expected;
}

describe('docs/clients.md: the TypeScript examples', () => {
  let s: TestServer;
  let browser: Browser;
  let work: string;

  before(async () => {
    s = await startServer();
    await s.createUser('admin', { groups: ['admins'], password: 'admin-password-1', email: 'admin@example.com' });
    work = await mkdtemp(join(tmpdir(), 'roost-docs-'));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await rm(work, { recursive: true, force: true });
  });

  test('TypeScript in Node: every block runs in order and shows what its comments say', async () => {
    const code = blocks(section(doc, 'TypeScript'), 'ts');
    assert.equal(code.length, 5);
    assert.ok((await runNodeBlocks(code, s.url, work)) >= 12);
  });

  /** Sign up, sign in, save a note and upload a file through a page, as a user would. */
  async function walkThrough(page: Page, name: string): Promise<void> {
    const signup = page.locator('form').filter({ has: page.getByRole('button', { name: 'Sign up' }) });
    await signup.getByLabel('name').fill('x');
    await signup.getByLabel('email').fill('not-an-address');
    await signup.getByRole('button', { name: 'Sign up' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'validation_failure name too short, email invalid_email, password required' })
      .waitFor();
    await signup.getByLabel('name').fill(name);
    await signup.getByLabel('email').fill(`${name}@example.com`);
    await signup.getByLabel('password').fill(`${name}-password-1`);
    await signup.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('status').filter({ hasText: 'Signed up, please sign in' }).waitFor();

    const signin = page.locator('form').filter({ has: page.getByRole('button', { name: 'Sign in' }) });
    await signin.getByLabel('identity').fill(name);
    await signin.getByLabel('password').fill(`${name}-password-1`);
    await signin.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(`Signed in as ${name}`).waitFor();

    await page.getByLabel('note').fill(`a note of ${name}`);
    await page.getByRole('button', { name: 'Save note' }).click();
    await page.getByText(`Saved: a note of ${name}`).waitFor();

    await page
      .getByLabel('file')
      .setInputFiles({ name: `${name}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`hello from ${name}`) });
    const link = page.locator(`a[href$="/files/${name}.txt"]`);
    await link.waitFor();
    // The link downloads the file with the browser's cookie.
    assert.equal(
      await page.evaluate(async (href) => (await fetch(href)).text(), (await link.getAttribute('href')) as string),
      `hello from ${name}`,
    );
    const token = await s.createUser(`${name}-check`);
    assert.equal(
      await filestore('files', { baseUrl: s.url, token }).read(`${name}.txt`, { as: 'text' }),
      `hello from ${name}`,
    );
  }

  async function runPage(parts: { html?: string; script?: string }, name: string): Promise<void> {
    const tp: TestPage = await openPage(browser, s.url, parts);
    try {
      await walkThrough(tp.page, name);
      assertNoPageErrors(tp);
    } finally {
      await tp.close();
    }
  }

  test('the browser page loading /static/roost-client.js', async () => {
    const [html] = blocks(section(doc, 'In the browser'), 'html');
    assert.ok(html);
    await runPage({ html }, 'bob');
  });

  test('the React app (JSX, bundled by esbuild)', async () => {
    const [jsx] = blocks(section(doc, 'React'), 'jsx');
    assert.ok(jsx);
    await runPage({ script: await bundlePage({ contents: jsx, loader: 'jsx', dir: TEST_DIR }) }, 'carol');
  });

  test('the Vue app (string templates: the full build)', async () => {
    const [js] = blocks(section(doc, 'Vue'), 'js');
    assert.ok(js);
    await runPage(
      { script: await bundlePage({ contents: js, loader: 'js', dir: TEST_DIR }, { vueFullBuild: true }) },
      'dave',
    );
  });
});

describe('docs/collections.md: the TypeScript and React examples', () => {
  const text = readFileSync(new URL('../../../docs/collections.md', import.meta.url), 'utf8');
  let s: TestServer;
  let work: string;
  let adminToken: string;
  before(async () => {
    // The configuration the page declares, as written.
    const [json] = blocks(section(text, 'Declaring a collection'), 'json');
    s = await startServer(JSON.parse(json ?? '{}'));
    adminToken = await s.createUser('admin', {
      groups: ['admins'],
      password: 'admin-password-1',
      email: 'admin@example.com',
    });
    work = await mkdtemp(join(tmpdir(), 'roost-docs-collections-'));
  });
  after(async () => {
    await s?.close();
    await rm(work, { recursive: true, force: true });
  });

  test('TypeScript in Node: the block runs and shows what its comments say', async () => {
    const code = blocks(section(text, 'TypeScript'), 'ts');
    assert.equal(code.length, 1);
    assert.equal(await runNodeBlocks(code, s.url, work), 5);
  });

  test('the React example shows the open posts and follows their changes', async () => {
    const [jsx] = blocks(section(text, 'React and Vue'), 'jsx');
    assert.ok(jsx);
    const posts = collection('posts', { baseUrl: s.url, token: adminToken });
    const script = await bundlePage({ contents: jsx, loader: 'jsx', dir: TEST_DIR });
    const browser = await launchBrowser();
    const tp = await openPage(browser, s.url, { script }).catch(async (error: unknown) => {
      await browser.close();
      throw error;
    });
    try {
      // The TypeScript example left one open post (it closed its first).
      const list = tp.page.locator('ul');
      await list.filter({ hasText: /^Bridge closed \(5\)$/ }).waitFor();
      const made = await posts.create({ title: 'Flooded tunnel', priority: 4 });
      await list.filter({ hasText: /^Bridge closed \(5\)Flooded tunnel \(4\)$/ }).waitFor();
      await posts.update(made.id, { status: 'closed' });
      await list.filter({ hasText: /^Bridge closed \(5\)$/ }).waitFor();
      assertNoPageErrors(tp);
    } finally {
      await tp.close();
      await browser.close();
    }
  });
});
