import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandWorkspace } from './helpers/command-workspace.js';
import { ROOST_BIN as BIN, roostEnv } from './helpers/roost-command.js';
import { createPostgresDatabase } from './helpers/test-server.js';

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
describe('cli', () => {
  const workspace = commandWorkspace('roost-cli-');
  const { run } = workspace;

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
    // The command that deletes says which database it judged by, as every command does (docs/operations.md).
    const sweep = await run(['sweep-blobs']);
    assert.equal(sweep.code, 0, sweep.stderr);
    assert.match(sweep.stdout, /^checked 0 stored contents, deleted 0 .*\(database: (SQLite|PostgreSQL) .*\)$/m);
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
      for (let waited = 0; !link && waited < 60_000; waited += 100) {
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
        cwd: workspace.cwd,
        env: env({
          ROOST_DATA_DIR: workspace.dataDir,
          ROOST_PORT: '0',
          ROOST_HOST: '127.0.0.1',
          ...workspace.database,
        }),
      });
      exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
      url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
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
      assert.equal(started.dataDir, workspace.dataDir);
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
