// docs/embedding.md's example, run as written in an empty folder that has only @roost/server
// (this checkout) installed: what it prints is what the document says it prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const doc = readFileSync(new URL('../../../../docs/embedding.md', import.meta.url), 'utf8');
const serverPackage = fileURLToPath(new URL('../../', import.meta.url));

test('docs/embedding.md: the example runs on its own configuration and prints what the document shows', async () => {
  const example = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((b) => b.includes('callerFor'));
  const printed = /It prints:\n\n```text\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(example, 'the example is in docs/embedding.md');
  assert.ok(printed, 'the document shows its output');
  const dir = mkdtempSync(join(tmpdir(), 'roost-embedding-'));
  try {
    mkdirSync(join(dir, 'node_modules', '@roost'), { recursive: true });
    symlinkSync(serverPackage, join(dir, 'node_modules', '@roost', 'server'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(join(dir, 'example.ts'), example);
    // The server's sources run through tsx, as `npm start` runs them (`roost-source`: the
    // repository's packages from their sources).
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=roost-source', '--import', import.meta.resolve('tsx'), 'example.ts'],
      { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 },
    );
    assert.equal(stdout, printed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
