import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The PostgreSQL pass of `npm test` runs the storage-dependent tests (scripts/test-passes.mjs)
 * again with ROOST_TEST_DIALECT=postgres. `startServer` honours it; a test that builds its own
 * configuration, or starts the `roost` command with an environment of its own, runs on SQLite
 * twice unless it asks for a PostgreSQL database itself. This finds such tests that do not.
 */
const testDir = new URL('..', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.test.ts') ? [path] : [];
  });
}

const OWN_DATABASE = /createRoost\(parseConfig|openServices\(parseConfig|bin\/roost\.js|helpers\/roost-command/;
const ASKS_FOR_POSTGRES = /create(Migrated)?PostgresDatabase|onPostgres|ROOST_TEST_DIALECT/;

interface TestPasses {
  filesFor(files: string[], kind: 'storage'): string[];
}

test('tests that configure Roost themselves take part in the PostgreSQL pass', async () => {
  const root = new URL('../../../../', import.meta.url).pathname;
  const { filesFor } = (await import(join(root, 'scripts/test-passes.mjs'))) as TestPasses;
  const storage = new Set(
    filesFor(
      files(testDir).map((f) => relative(root, f)),
      'storage',
    ),
  );
  const offenders = files(testDir)
    .filter((f) => storage.has(relative(root, f)))
    .filter((f) => {
      const text = readFileSync(f, 'utf8');
      return OWN_DATABASE.test(text) && !ASKS_FOR_POSTGRES.test(text);
    })
    .map((f) => relative(testDir, f));
  assert.deepEqual(offenders, []);
});
