import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ROOST_BIN as BIN, roostEnv, runRoost } from './helpers/roost-command.js';
import { createPostgresDatabase, type TestPostgresDatabase } from './helpers/test-server.js';

/** Every operation of the user service (and the `updateMail` alias): each has a path. */
const USER_OPS = [
  'ping',
  'token',
  'signin',
  'signout',
  'identity',
  'name',
  'profile',
  'authenticated',
  'allowed',
  'signupDirect',
  'signupOptin',
  'signupReview',
  'signupSendpw',
  'signupUid',
  'activate',
  'update',
  'updatePassword',
  'updateEmail',
  'updateMail',
  'verifyEmail',
  'verifyEmail2',
  'resetPassword',
  'resetPassword2',
  'message',
  'disable',
  'delete',
  'review',
  'getUser',
  'setUser',
  'removeUser',
  'list',
  'identities',
  'getPermissions',
  'setPermissions',
];

/** A clean environment (helpers/roost-command.ts) with the log at info, as the assertions read it. */
const env = (extra: Record<string, string>) => roostEnv({ ROOST_LOG_LEVEL: 'info', ...extra });
const roost = (args: string[], options: { cwd: string; env?: Record<string, string> }) =>
  runRoost(args, { cwd: options.cwd, env: { ROOST_LOG_LEVEL: 'info', ...options.env }, timeoutMs: 20_000 });

describe('cli', () => {
  let cwd: string;
  let dataDir: string;
  // In the PostgreSQL pass the commands work on a database of their own there, as `serve` does.
  let pgDb: TestPostgresDatabase | null = null;
  let database: Record<string, string> = {};
  before(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'roost-cli-'));
    dataDir = join(cwd, 'data');
    if (process.env.ROOST_TEST_DIALECT === 'postgres') {
      pgDb = await createPostgresDatabase();
      database = pgDb.env;
    }
  });
  after(async () => {
    await pgDb?.drop();
    await rm(cwd, { recursive: true, force: true });
  });

  const run = (args: string[], extra: Record<string, string> = {}) =>
    roost(args, { cwd, env: { ROOST_DATA_DIR: dataDir, ...database, ...extra } });

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
    const res = await run(['migrate']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(
      res.stdout,
      new RegExp(`database schema is up to date \\(database: ${pgDb ? 'PostgreSQL' : 'SQLite'} .*; data directory: `),
    );
  });

  test('user add makes an administrator; user list shows it; a duplicate name fails with 1', async () => {
    const add = await run([
      'user',
      'add',
      '--name',
      'root',
      '--email',
      'root@example.com',
      '--password',
      'a-good-password',
      '--group',
      'admins',
    ]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /created root \(.+\) in admins/);
    const list = await run(['user', 'list']);
    assert.equal(list.code, 0, list.stderr);
    const line = list.stdout.split('\n').find((l) => l.startsWith('root '));
    assert.ok(line, list.stdout);
    assert.match(line, /root@example\.com\s+active\s+admins/);
    assert.match(list.stdout, /^1 user \(database: (SQLite|PostgreSQL) .*; data directory: .*\)$/m);
    const dup = await run([
      'user',
      'add',
      '--name',
      'root',
      '--email',
      'other@example.com',
      '--password',
      'a-good-password',
    ]);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /exists/);
    const dupMail = await run([
      'user',
      'add',
      '--name',
      'other',
      '--email',
      'root@example.com',
      '--password',
      'a-good-password',
    ]);
    assert.equal(dupMail.code, 1);
    assert.match(dupMail.stderr, /email exists/);
    const after = await run(['user', 'list']);
    assert.match(after.stdout, /^1 user \(/m);
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

      // The file compiles on its own, strictly, and a program using it is checked by it.
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

  test('serve without an administrator prints a setup link that makes the first one in the browser', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'roost-first-run-'));
    // A cost below OWASP's: the start warns of it (and the first administrator's hash is cheap).
    await writeFile(
      join(fresh, 'roost.config.json'),
      JSON.stringify({ users: { passwordHashing: { memoryKiB: 64, iterations: 1 } } }),
    );
    const ownDb = process.env.ROOST_TEST_DIALECT === 'postgres' ? await createPostgresDatabase() : null;
    const child = spawn(process.execPath, [BIN, 'serve'], {
      cwd: fresh,
      env: env({
        ROOST_DATA_DIR: join(fresh, 'data'),
        ROOST_PORT: '0',
        ...ownDb?.env,
      }),
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      let link = '';
      for (let waited = 0; !link && waited < 20_000; waited += 100) {
        link = /"setupUrl":"([^"]+)"/.exec(out)?.[1] ?? '';
        if (!link) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/admin\/setup\?token=[\w-]{20,}$/, out);
      assert.match(out, /No administrator yet\. Open http:.* within 60 minutes .* or run: npx roost user add/);
      assert.match(
        out,
        /users\.passwordHashing \(memoryKiB 64, iterations 1\) is below every argon2id setting OWASP recommends/,
      );
      assert.equal((await fetch(link)).status, 200);
      const origin = new URL(link).origin;
      const made = await fetch(`${origin}/admin/setup`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({
          create$: 'Create',
          name: 'first',
          email: 'first@example.com',
          password: 'first-password-1',
          'password-confirm': 'first-password-1',
          token: new URL(link).searchParams.get('token') ?? '',
        }),
      });
      assert.equal(made.status, 303);
      assert.equal((await fetch(link)).status, 410, 'used');
    } finally {
      child.kill('SIGTERM');
      await exited;
      await ownDb?.drop();
      await rm(fresh, { recursive: true, force: true });
    }
  });

  describe('serve', () => {
    let child: ChildProcess;
    let url: string;
    let exited: Promise<number | null>;
    /** What serve wrote to standard output: its log, a JSON object per line. */
    let out = '';

    before(async () => {
      child = spawn(process.execPath, [BIN, 'serve'], {
        cwd,
        env: env({ ROOST_DATA_DIR: dataDir, ROOST_PORT: '0', ROOST_HOST: '127.0.0.1', ...database }),
      });
      exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
      url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 20_000);
        child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
        child.stdout?.on('data', (d: Buffer) => {
          out += d.toString();
          for (const line of out.split('\n')) {
            if (!line.startsWith('{')) continue;
            try {
              const entry = JSON.parse(line) as { msg?: string };
              const match = /Roost listens on (http:\/\/[^\s]+)/.exec(entry.msg ?? '');
              if (match?.[1]) {
                clearTimeout(timer);
                resolve(match[1]);
              }
            } catch {
              // a partial line: wait for the rest
            }
          }
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
      });
    });
    after(async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    });

    test("a refused request's log line names the request and the reason", async () => {
      const res = await fetch(`${url}/users/api/profile`);
      assert.equal(res.status, 401);
      const logged = async () => {
        for (let waited = 0; waited < 5000; waited += 50) {
          const entries = out
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as Record<string, unknown>);
          const entry = entries.find((e) => e.code === 'not_signed_in');
          if (entry) return entry;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`no log line for the refusal in: ${out}`);
      };
      const entry = await logged();
      assert.equal(entry.reqId, res.headers.get('x-request-id'));
      assert.equal(entry.level, 30, 'a refusal is logged at info');
    });

    /** serve's log entries so far (whole lines only). */
    const entries = () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{') && line.endsWith('}'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const eventually = async (find: (e: Record<string, unknown>) => boolean, what: string) => {
      for (let waited = 0; waited < 5000; waited += 50) {
        const entry = entries().find(find);
        if (entry) return entry;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no log line for ${what} in: ${out}`);
    };

    test('the start names the version, database, data directory, admin backend and API docs', async () => {
      const started = await eventually((e) => /Roost listens on/.test(String(e.msg)), 'the start');
      assert.equal(started.version, '0.1.0');
      assert.equal(started.database, process.env.ROOST_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite');
      assert.equal(started.dataDir, dataDir);
      const where = await eventually((e) => /Admin backend:/.test(String(e.msg)), 'the addresses');
      assert.match(String(where.msg), new RegExp(`Admin backend: ${url}/admin · API docs: ${url}/docs`));
    });

    test("one line per request at info in pino-http's shape, with route, user and failure code", async () => {
      const pinged = await fetch(`${url}/users/api/ping`);
      const ok = await eventually((e) => e.msg === 'request completed' && e.route === '/users/api/ping', 'ping');
      assert.deepEqual(
        [ok.level, ok.req, ok.res, ok.userId, ok.code],
        [
          30,
          { id: pinged.headers.get('x-request-id'), method: 'GET', url: '/users/api/ping', remoteAddress: '127.0.0.1' },
          { statusCode: 200 },
          null,
          undefined,
        ],
      );
      assert.equal(typeof ok.responseTime, 'number');
      assert.equal(ok.reqId, pinged.headers.get('x-request-id'));
      // Times are ISO 8601 with their offset (issue 42, item 8).
      assert.match(String(ok.time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      await fetch(`${url}/users/api/profile`);
      const refused = await eventually(
        (e) => e.msg === 'request completed' && e.route === '/users/api/profile',
        'the refusal',
      );
      assert.deepEqual([refused.res, refused.code], [{ statusCode: 401 }, 'not_signed_in']);
      await fetch(`${url}/nowhere/at/all`);
      const missing = await eventually(
        (e) => e.msg === 'request completed' && e.code === 'not_found' && e.route === null,
        'a missing route',
      );
      assert.deepEqual(missing.res, { statusCode: 404 });
      // A page's failure goes through the same failure function (http/failure.ts): its line names its code too.
      await fetch(`${url}/users/activate`, { method: 'POST', headers: { origin: 'https://evil.example' } });
      const page = await eventually(
        (e) => e.msg === 'request completed' && e.route === '/users/activate' && e.code !== undefined,
        'a refused page',
      );
      assert.deepEqual([page.res, page.code], [{ statusCode: 403 }, 'cross_site_request']);
    });

    test('answers /users/api/ping', async () => {
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/users/api/ping`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { result: 1 });
    });

    test('the administrator made by the CLI signs in and lists users', async () => {
      const token = await fetch(`${url}/users/api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity: 'root', password: 'a-good-password' }),
      }).then((r) => r.json() as Promise<{ token: string }>);
      const list = await fetch(`${url}/users/api/list`, { headers: { 'x-auth-token': token.token } }).then(
        (r) => r.json() as Promise<{ users: Array<{ name: string }> }>,
      );
      assert.deepEqual(
        list.users.map((u) => u.name),
        ['root'],
      );
    });

    test('GET /openapi.json lists every user operation, once (its POST; GET and DELETE are said)', async () => {
      const res = await fetch(`${url}/openapi.json`);
      assert.equal(res.status, 200);
      const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
      assert.match(doc.openapi, /^3\./);
      for (const op of USER_OPS.filter((name) => name !== 'updateMail')) {
        const path = doc.paths[`/users/api/${op}`];
        assert.ok(path?.post, `no POST for ${op}`);
        assert.equal(path.get, undefined, `${op}: GET is said in the description, not listed again`);
      }
      assert.match(JSON.stringify(doc.paths['/users/api/updateEmail']?.post), /updateMail/, 'the alias is said');
      for (const op of ['disable', 'delete'])
        assert.match(JSON.stringify(doc.paths[`/users/api/${op}`]?.post), /DELETE/, `${op}: answers DELETE too`);
    });

    test('GET /docs/ answers 200 HTML', async () => {
      const res = await fetch(`${url}/docs/`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(await res.text(), /<html/i);
    });

    test('SIGTERM stops it with exit code 0', async () => {
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    });
  });
});
