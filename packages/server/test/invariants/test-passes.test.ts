import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every test file says in which passes of `npm test` it runs (scripts/test-passes.mjs): pass 1
 * only, or also pass 2 (PostgreSQL + S3: 'storage') and/or pass 4 (Node 24: 'runtime'). A new
 * file that is not listed would silently skip PostgreSQL and Node 24, so scripts/test.mjs refuses
 * to start, and this fails, naming it and what to write.
 */
const root = new URL('../../../../', import.meta.url).pathname;

interface TestPasses {
  passProblems(files: string[]): string[];
}

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) testFiles(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

test('every test file is in the list of passes, and every listed file exists', async () => {
  const { passProblems } = (await import(join(root, 'scripts/test-passes.mjs'))) as TestPasses;
  const files = readdirSync(join(root, 'packages'))
    .map((p) => join(root, 'packages', p))
    .filter((p) => existsSync(join(p, 'package.json')))
    .flatMap((p) => testFiles(p));
  assert.ok(files.length > 100, `only ${files.length} test files found under packages/`);
  assert.deepEqual(passProblems(files), []);
});
