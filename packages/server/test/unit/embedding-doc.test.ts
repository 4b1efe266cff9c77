// docs/embedding.md's examples, each run as written in an empty folder that has only @roost/server
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

/** Each program of the document with the output it shows under "It prints:". */
const examples = [...doc.matchAll(/```ts\n((?:(?!```)[\s\S])*)```\n\nIt prints:\n\n```text\n([\s\S]*?)```/g)].map(
  (m) => ({
    program: m[1] ?? '',
    printed: m[2] ?? '',
  }),
);

test('docs/embedding.md shows its two programs with their output', () => {
  assert.equal(examples.length, 2);
  assert.ok(examples[0]?.program.includes('callerFor'), 'the operations example');
  assert.ok(examples[1]?.program.includes('roost.hub.open'), 'the live changes and webhooks example');
});

for (const [n, { program, printed }] of examples.entries())
  test(`docs/embedding.md: example ${n + 1} prints what the document shows`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-embedding-'));
    try {
      mkdirSync(join(dir, 'node_modules', '@roost'), { recursive: true });
      symlinkSync(serverPackage, join(dir, 'node_modules', '@roost', 'server'), 'dir');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
      writeFileSync(join(dir, 'example.ts'), program);
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
