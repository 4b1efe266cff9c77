import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandWorkspace } from './helpers/command-workspace.js';
import { runRoost } from './helpers/roost-command.js';
import { createPostgresDatabase } from './helpers/test-server.js';

/**
 * The `roost` commands that only read and write the database: account recovery, migrate and types.
 * They run in passes 1 and 2 (scripts/test-passes.mjs): what differs between Node versions in the
 * command (a child process, its standard streams, signals, `user add`'s hash) is cli.test.ts's,
 * which runs on Node 24 too.
 */
// The types test runs the command in a folder of its own; a command that hangs fails after a minute.
const roost = (args: string[], options: { cwd: string; env?: Record<string, string> }) =>
  runRoost(args, { cwd: options.cwd, env: { ROOST_LOG_LEVEL: 'info', ...options.env }, timeoutMs: 60_000 });

describe('cli: the database commands', () => {
  const workspace = commandWorkspace('roost-cli-users-');
  const { run } = workspace;

  test('user passwd, groups, disable, enable, remove: account recovery from the shell, as the API allows', async () => {
    assert.equal(
      (await run(['user', 'add', '--name', 'carl', '--email', 'carl@example.com', '--password', 'carl-secret-1'])).code,
      0,
    );
    const badGroup = await run([
      'user',
      'add',
      '--name',
      'dora',
      '--email',
      'dora@example.com',
      '--password',
      'dora-secret-1',
      '--group',
      'sys:owner',
    ]);
    assert.equal(badGroup.code, 2);
    assert.match(badGroup.stderr, /"sys:owner" is not a group name: letters, digits/);
    const short = await run(['user', 'add', '--name', 'dora', '--email', 'dora@example.com', '--password', 'short']);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /password too short \(a password has 8 to 256 characters\)/);

    const spaced = await run(['user', 'groups', 'carl', '--group', 'editors', '--group', 'bad group']);
    assert.equal(spaced.code, 2);
    assert.match(spaced.stderr, /"bad group" is not a group name/);
    const groups = await run(['user', 'groups', 'carl', '--group', 'editors']);
    assert.equal(groups.code, 0, groups.stderr);
    assert.match(groups.stdout, /groups set for carl \(database: /);
    assert.match((await run(['user', 'list'])).stdout, /^carl .* active +editors/m);
    assert.equal((await run(['user', 'disable', 'carl'])).code, 0);
    assert.match((await run(['user', 'list'])).stdout, /^carl .* disabled/m);
    assert.equal((await run(['user', 'enable', 'carl@example.com'])).code, 0);
    assert.match((await run(['user', 'list'])).stdout, /^carl .* active/m);
    const tooShort = await run(['user', 'passwd', 'carl', '--password', 'short']);
    assert.equal(tooShort.code, 1);
    assert.match(tooShort.stderr, /password too short; a password has 8 to 256 characters/);
    assert.equal((await run(['user', 'passwd', 'carl'])).code, 2, 'no --password');
    assert.equal((await run(['user', 'passwd', 'carl', '--password', 'carl-secret-2'])).code, 0);
    assert.equal((await run(['user', 'remove', 'carl'])).code, 0);
    const gone = await run(['user', 'remove', 'carl']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no such user/i);
    assert.doesNotMatch((await run(['user', 'list'])).stdout, /^carl/m);
  });

  test('migrate brings a fresh database up to date', async () => {
    const engine = workspace.postgres ? 'PostgreSQL' : 'SQLite';
    const res = await run(['migrate']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`database schema is up to date \\(database: ${engine} .*; data directory: `));
  });

  test('types writes the record types of the collections, configured or in the database; they compile', async () => {
    // The client's fixtures: the type-level test (packages/client/test/collection-types.check.ts)
    // compiles against roost-types.ts, which must be what the command writes for collections.json.
    const fixture = (file: string) => fileURLToPath(new URL(`../../client/test/fixtures/${file}`, import.meta.url));
    const declared = JSON.parse(await readFile(fixture('collections.json'), 'utf8')) as Record<string, unknown>;
    const notes = {
      schema: { type: 'object', properties: { text: { type: 'string' } } },
      rules: { list: null, view: null, create: null, update: null, delete: null },
    };
    const dir = await mkdtemp(join(tmpdir(), 'roost-types-'));
    const ownDb = process.env.ROOST_TEST_DIALECT === 'postgres' ? await createPostgresDatabase() : null;
    const inDir = (args: string[]) =>
      roost(args, {
        cwd: dir,
        env: { ROOST_DATA_DIR: join(dir, 'data'), ...ownDb?.env },
      });
    try {
      const config = (collections: Record<string, unknown>) =>
        writeFile(join(dir, 'roost.config.json'), JSON.stringify({ collections }));
      await config({});
      const none = await inDir(['types']);
      assert.equal(none.code, 0, none.stderr);
      assert.match(none.stdout, /^wrote roost-types\.ts, the record types of 0 collection\(s\) \(no collection yet\)/);
      assert.match(await readFile(join(dir, 'roost-types.ts'), 'utf8'), /export interface Collections \{\}/);
      // `notes` is made once, then left out of the configuration: it stays in the database only,
      // as a collection made over the API does.
      await config({ ...declared, notes });
      assert.equal((await inDir(['migrate'])).code, 0);
      await config(declared);
      const res = await inDir(['types', '--out', 'records.ts']);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /^wrote records\.ts, the record types of 3 collection\(s\): authors, notes, posts \(/);
      const written = await readFile(join(dir, 'records.ts'), 'utf8');
      assert.equal(written, await readFile(fixture('roost-types.ts'), 'utf8'), "the fixture is the command's output");

      // The file compiles on its own, strictly, and a program using it is checked by it. In the SQLite pass:
      // on PostgreSQL the output is the same fixture (just above), and compiling it again (2 to 3 s of
      // CPU) would show nothing new.
      if (process.env.ROOST_TEST_DIALECT === 'postgres') return;
      const { default: ts } = await import('typescript');
      await writeFile(
        join(dir, 'use.ts'),
        [
          "import type { Collections, PostsRecord } from './records.js';",
          "export const post: PostsRecord = { id: 'x', created: 'x', updated: 'x', owner: null, title: 'Road works' };",
          "export const name: keyof Collections = 'notes';",
          '// @ts-expect-error: priority is a number',
          "export const wrong: PostsRecord = { ...post, priority: 'high' };",
        ].join('\n'),
      );
      const program = ts.createProgram([join(dir, 'records.ts'), join(dir, 'use.ts')], {
        strict: true,
        noEmit: true,
        noUnusedLocals: true,
        exactOptionalPropertyTypes: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        types: [],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      assert.deepEqual(problems, []);
    } finally {
      await ownDb?.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
