// The README's examples: the first stays complete and short (issue 2: "a complete example in under
// 30 lines"); the content example (ObjectForm create and edit, ToolForm run) really runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

test('README example: one ts block under 30 lines that imports the public surface', () => {
  const block = blocks[0] ?? '';
  const lines = block.trimEnd().split('\n');
  assert.ok(lines.length > 10 && lines.length < 30, `${lines.length} lines`);
  assert.match(block, /from '@roost\/forms'/);
  assert.match(block, /form\.process\(/);
});

/**
 * The better-sqlite3 this Node loads, as the server picks it (packages/server/src/storage/sqlite-driver.ts):
 * 13, installed as `better-sqlite3-napi`, on Node 22 and later; 12 otherwise. Same API.
 */
function sqlitePackage(require: NodeJS.Require): string {
  if (Number(process.versions.node.split('.')[0]) < 22) return 'better-sqlite3';
  try {
    require.resolve('better-sqlite3-napi');
    return 'better-sqlite3-napi';
  } catch {
    return 'better-sqlite3';
  }
}

/** Runs a README block as written, its package imports pointed at this checkout; what it logged. */
async function runBlock(block: string, name: string): Promise<string[]> {
  const require = createRequire(new URL('../package.json', import.meta.url));
  const source = block
    .replace("'@roost/forms'", `'${pathToFileURL(new URL('../src/index.ts', import.meta.url).pathname).href}'`)
    .replace("'better-sqlite3'", `'${pathToFileURL(require.resolve(sqlitePackage(require))).href}'`)
    .replace("'kysely'", `'${pathToFileURL(require.resolve('kysely')).href}'`);
  const dir = mkdtempSync(join(tmpdir(), 'roost-readme-'));
  const file = join(dir, `${name}.mts`);
  writeFileSync(file, `${source}\nexport {};\n`);
  const logged: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) =>
    void logged.push(args.map((a) => (typeof a === 'string' ? a : inspect(a, { breakLength: Infinity }))).join(' '));
  try {
    // Through tsx for this import only: scripts/test.mjs runs the test files compiled, without a loader.
    await tsImport(pathToFileURL(file).href, import.meta.url);
  } finally {
    console.log = log;
    rmSync(dir, { recursive: true, force: true });
  }
  return logged;
}

test('README content example runs: ObjectForm creates and edits an object, ToolForm runs a tool', async () => {
  const block = blocks.find((b) => b.includes('createKyselyContent(db'));
  assert.ok(block, 'the content example is in the README');
  const logged = await runBlock(block, 'content-example');
  assert.match(logged[0] ?? '', /^302 \/content\/[\w-]+$/);
  assert.equal(logged[1], 'Hello again / First post');
  assert.equal(logged[2], 'true <pre class="tool-output">Articles: 1</pre>');
});

test('README live validation and rules example runs: a live check, a rule hiding and one requiring', async () => {
  const block = blocks.find((b) => b.includes('liveValidation: true'));
  assert.ok(block, 'the example is in the README');
  assert.deepEqual(await runBlock(block, 'live-example'), [
    "{ field: 'username', messages: [ 'Name taken' ], inputs: [] }",
    "saved { username: 'grace', seats: 4, kind: 'private' }",
    '2',
  ]);
});

test('README wizard example runs: two steps, then the whole data', async () => {
  const block = blocks.find((b) => b.includes('new WizardForm('));
  assert.ok(block, 'the wizard example is in the README');
  const logged = await runBlock(block, 'wizard-example');
  assert.deepEqual(logged, [
    'profile',
    '{"email":"ada@example.org","name":"Ada","addresses":[{"street":"Main St 1"}]}',
  ]);
});
