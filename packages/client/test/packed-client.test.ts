import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import {
  consumerProject,
  nodeIn,
  pack,
  repoPackage,
  tarballFiles,
  tscErrorsIn,
  tscIn,
} from '../../server/test/helpers/packed.js';
import { startServer, type TestServer } from '../../server/test/helpers/test-server.js';
import { launchBrowser } from './helpers/pages.js';

/**
 * @roost/client as another project installs it (docs/clients.md, "Install"): `npm pack`, then
 * `npm install` of the tarball in a fresh project outside this repository, used from a plain
 * `node` script, typechecked with `tsc --strict` (with the docs' TypeScript examples), and
 * bundled by Vite into a page that chromium runs.
 */

const root = new URL('../../../', import.meta.url).pathname;
const doc = await readFile(join(root, 'docs', 'clients.md'), 'utf8');

/** The ```ts blocks of docs/clients.md. */
const tsBlocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);

describe('the packed @roost/client', () => {
  let work: string;
  let app: string;
  let tarball: string;
  let s: TestServer;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'roost-packed-client-'));
    tarball = await pack('client', work);
    app = join(work, 'app');
    // Types and frameworks come from this repository's install (the same registry packages),
    // linked, so the test needs no download beyond the tarball and its one dependency (eventsource-parser).
    await consumerProject(app, {
      '@roost/client': `file:${tarball}`,
      '@types/node': repoPackage('@types/node'),
      '@types/react': repoPackage('@types/react'),
      react: repoPackage('react'),
      vue: repoPackage('vue'),
    });
    s = await startServer();
    await s.createUser('alice', { password: 'alice-password-1' });
  });
  after(async () => {
    await s?.close();
    await rm(work, { recursive: true, force: true });
  });

  test('the tarball holds the built JavaScript, its declarations and the license, no TypeScript sources', async () => {
    const files = await tarballFiles(tarball);
    for (const file of [
      'package.json',
      'LICENSE',
      'README.md',
      'CHANGELOG.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/react/index.js',
      'dist/react/index.d.ts',
      'dist/vue/index.js',
      'dist/vue/index.d.ts',
    ]) {
      assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
    }
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      [],
    );
    const manifest = JSON.parse(
      await readFile(join(app, 'node_modules', '@roost', 'client', 'package.json'), 'utf8'),
    ) as { peerDependenciesMeta: Record<string, { optional: boolean }> };
    assert.deepEqual(manifest.peerDependenciesMeta, { react: { optional: true }, vue: { optional: true } });
  });

  test('a plain node script imports it and works against a real Roost', async () => {
    await writeFile(
      join(app, 'main.js'),
      `import { datastore, isRoostError, users } from '@roost/client';
const auth = users({ baseUrl: process.env.ROOST_URL });
await auth.token('alice', 'alice-password-1');
const data = datastore('data', { baseUrl: process.env.ROOST_URL, token: () => auth.options.token });
await data.newItem('packed', 'from a tarball');
const item = await data.getItem('packed');
let code = null;
try { await data.getItem('missing'); } catch (error) { code = isRoostError(error) ? error.code : 'not a RoostError'; }
console.log(JSON.stringify({ value: item.value, owner: item.owner, code }));
`,
    );
    const { stdout } = await nodeIn(app, ['main.js'], { ROOST_URL: s.url });
    assert.deepEqual(JSON.parse(stdout), { value: 'from a tarball', owner: 'alice', code: 'item_not_found' });
  });

  test("tsc --strict passes on a consumer of every entry and on docs/clients.md's TypeScript examples", async () => {
    assert.ok(tsBlocks.length >= 4, `${tsBlocks.length} TypeScript blocks in docs/clients.md`);
    const strict = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    };
    // Node: the docs' examples, each a module of its own (they use top-level await).
    const docs = join(app, 'docs');
    await mkdir(docs, { recursive: true });
    for (const [i, block] of tsBlocks.entries()) await writeFile(join(docs, `example-${i + 1}.mts`), block);
    await writeFile(
      join(docs, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...strict, types: ['node'] }, include: ['*.mts'] }),
    );
    await tscIn(docs);
    // A browser app: no Node types at all, the React and Vue entries beside the core.
    const web = join(app, 'typed');
    await mkdir(web, { recursive: true });
    await writeFile(
      join(web, 'app.mts'),
      `import { datastore, filestore, users, isRoostError, type RoostError } from '@roost/client';
import { useItem, useUser } from '@roost/client/react';
import { useList } from '@roost/client/vue';
const auth = users({ baseUrl: 'https://api.example.com' });
const notes = datastore('data', { baseUrl: 'https://api.example.com', token: () => auth.options.token });
const files = filestore('files');
export async function run(): Promise<string> {
  const answer = await auth.token('alice', 'secret');
  const item = await notes.getItem('color');
  const value: unknown = item.value;
  const entry = await files.getItem('reports/q1.txt');
  const size: number = entry.size;
  try {
    await notes.removeItem('color');
  } catch (error) {
    if (isRoostError(error)) { const e: RoostError = error; return e.code; }
  }
  return \`\${answer.token} \${String(value)} \${size}\`;
}
export const hooks = [useItem, useUser, useList];
`,
    );
    await writeFile(
      join(web, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...strict, types: [] }, include: ['*.mts'] }),
    );
    // A mistake beside it is still caught (the declarations are real, not `any`): its error is the only one.
    await writeFile(
      join(web, 'wrong.mts'),
      `import { datastore } from '@roost/client';\nconst size: string = (await ` +
        `datastore('data').list()).total;\nexport { size };\n`,
    );
    const errors = await tscErrorsIn(web);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0]!, /^wrong\.mts\(\d+,\d+\): error TS2322:/);
  });

  describe('in a page built by Vite', () => {
    let browser: Browser;
    before(async () => {
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
    });

    test('Vite bundles the package; the page signs in, writes and reads an item in chromium', async () => {
      const web = join(app, 'web');
      await mkdir(web, { recursive: true });
      await writeFile(
        join(web, 'index.html'),
        '<!doctype html><html><head><meta charset="utf-8"><title>packed</title></head><body>' +
          '<output id="out">…</output><script type="module" src="./main.js"></script></body></html>',
      );
      await writeFile(
        join(web, 'main.js'),
        `import { datastore, users } from '@roost/client';
const out = document.getElementById('out');
try {
  const auth = users();
  await auth.token('alice', 'alice-password-1');
  const data = datastore('data', { token: () => auth.options.token });
  await data.setItem('from-vite', 'hello from a Vite page');
  out.textContent = (await data.getItem('from-vite')).value;
} catch (error) {
  out.textContent = 'failed: ' + (error.code ?? error.message);
}
`,
      );
      const { build } = await import('vite');
      const outDir = join(web, 'dist');
      // Vite resolves @roost/client in the consumer's node_modules, under the browser's conditions.
      await build({
        root: web,
        base: '/app/',
        logLevel: 'silent',
        configFile: false,
        build: { outDir, emptyOutDir: true },
      });
      const bundled = (await readFile(join(outDir, 'index.html'), 'utf8')).match(
        /src="\/app\/(assets\/[^"]+\.js)"/,
      )?.[1];
      assert.ok(bundled, 'the built page loads one bundled script');
      assert.doesNotMatch(
        await readFile(join(outDir, bundled), 'utf8'),
        /from\s*["']@roost\/client["']/,
        'the package is bundled, not left as a bare import',
      );

      // The built files served under Roost's origin, as a reverse proxy in front of both would.
      const context = await browser.newContext({ baseURL: s.url });
      try {
        const page = await context.newPage();
        const errors: Error[] = [];
        page.on('pageerror', (error) => errors.push(error));
        const types: Record<string, string> = {
          '.html': 'text/html; charset=utf-8',
          '.js': 'text/javascript; charset=utf-8',
        };
        await page.route(`${s.url}/app/**`, async (route) => {
          const path = new URL(route.request().url()).pathname.slice('/app/'.length) || 'index.html';
          await route.fulfill({
            contentType: types[extname(path)] ?? 'application/octet-stream',
            body: await readFile(join(outDir, path)),
          });
        });
        await page.goto('/app/index.html');
        await page.waitForFunction(() => document.getElementById('out')?.textContent !== '…');
        assert.equal(await page.textContent('#out'), 'hello from a Vite page');
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  });
});
