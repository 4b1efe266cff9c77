import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { ROOST_SOURCE_BIN, runRoost } from './helpers/roost-command.js';

/**
 * The `roost` command's refusals: arguments, settings, a configuration file, a database or a port
 * it cannot use. Each ends before any data is stored, so this runs in pass 1 only
 * (scripts/test-passes.mjs); the commands that work on a database are in cli.test.ts and cli-users.test.ts.
 */

// A command that hangs fails its test after a minute (a start took over 20 s on a machine loaded by other work).
const roost = (args: string[], options: { cwd: string; env?: Record<string, string> }) =>
  runRoost(args, { cwd: options.cwd, env: { ROOST_LOG_LEVEL: 'info', ...options.env }, timeoutMs: 60_000 });

describe('cli: arguments, settings and what it cannot use', () => {
  let cwd: string;
  let dataDir: string;
  before(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'roost-cli-args-'));
    dataDir = join(cwd, 'data');
  });
  after(() => rm(cwd, { recursive: true, force: true }));

  const run = (args: string[], extra: Record<string, string> = {}) =>
    roost(args, { cwd, env: { ROOST_DATA_DIR: dataDir, ...extra } });

  test('--version prints the version', async () => {
    const res = await run(['--version']);
    assert.deepEqual([res.code, res.stdout.trim()], [0, 'roost 0.1.0']);
  });

  test('bin/roost.js itself (the sources through tsx, as users run it) starts and answers', async () => {
    const res = await runRoost(['--version'], { cwd, bin: ROOST_SOURCE_BIN, timeoutMs: 60_000 });
    assert.deepEqual([res.code, res.stdout.trim()], [0, 'roost 0.1.0']);
  });

  test('missing options exit 2 naming them; invalid values exit 2', async () => {
    const missing = await run(['user', 'add', '--name', 'x1']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--email/);
    assert.match(missing.stderr, /--password/);
    const short = await run(['user', 'add', '--name', 'shorty', '--email', 'not-an-email', '--password', 'short']);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /email invalid_email/);
    assert.match(short.stderr, /password too short \(a password has 8 to 256 characters\)/);
    const unknown = await run(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command/);
  });

  test('types refuses an --out it cannot write before it opens the database', async () => {
    for (const [out, message] of [
      ['', /--out takes a file name/],
      [join(cwd, 'no-such-folder', 'types.ts'), /the folder of .*no-such-folder.* does not exist/],
      [cwd, /is a folder: give a file name/],
    ] as const) {
      const res = await run(['types', '--out', out]);
      assert.equal(res.code, 2, res.stderr);
      assert.match(res.stderr, message);
    }
    const unknown = await run(['types', '--output', 'x.ts']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown option '--output'/);
  });

  test('ROOST_PORT=abc exits 1 with a message naming port', async () => {
    const res = await run(['migrate'], { ROOST_PORT: 'abc' });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Invalid configuration/);
    assert.match(res.stderr, /\bport\b/);
    assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
  });

  test('an unknown key in roost.config.json exits 1 naming the key', async () => {
    const dir = join(cwd, 'badconfig');
    await mkdir(dir);
    await writeFile(join(dir, 'roost.config.json'), JSON.stringify({ prot: 8080, users: { identityPolicyy: 'name' } }));
    const res = await roost(['migrate'], { cwd: dir, env: { ROOST_DATA_DIR: join(dir, 'data') } });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /prot/);
    assert.match(res.stderr, /identityPolicyy/);
    assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
  });

  test('a database that cannot be used names the cause and the setting that fixes it, not the password', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        'postgres://roost:secret-pw@127.0.0.1:1/roost',
        /PostgreSQL at 127\.0\.0\.1:1 refuses connections: start it .* or fix host and port in databaseUrl \(ROOST_/,
      ],
      [
        'postgres://roost:secret-pw@no-such-host.invalid/roost',
        /the PostgreSQL host in databaseUrl \(ROOST_DATABASE_URL\) is not known: no-such-host\.invalid/,
      ],
    ];
    if (process.env.ROOST_TEST_DATABASE_URL) {
      const server = new URL(process.env.ROOST_TEST_DATABASE_URL);
      const at = (user: string, password: string, database: string) =>
        `postgres://${user}:${password}@${server.host}/${database}`;
      cases.push([
        at(server.username, 'secret-pw', 'postgres'),
        new RegExp(
          `PostgreSQL refused the password of user "${server.username}": fix the user or password in databaseUrl`,
        ),
      ]);
      cases.push([
        at(server.username, server.password, 'no_such_database_here'),
        /the database "no_such_database_here" does not exist on .*: create it \(createdb -O \w+ no_such_database_/,
      ]);
    }
    // Every command checks the database the same way (storage/database-errors.ts): all of them for one case.
    const runs = cases.flatMap(([url, expected], i) =>
      (i === 0 ? [['migrate'], ['user', 'list'], ['serve'], ['backup', join(cwd, 'never')]] : [['migrate']]).map(
        (command) => ({ url, expected, command }),
      ),
    );
    // At once: most of each run is waiting on the database (a refused connection is tried again for about
    // 2 s, storage/retry.ts), and none of them stores anything.
    const results = await Promise.all(
      runs.map(({ url, command }) => run(command, { ROOST_DATABASE_URL: url, ROOST_PORT: '0' })),
    );
    for (const [i, { expected, command }] of runs.entries()) {
      const res = results[i]!;
      assert.equal(res.code, 1, `${command.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, expected, command.join(' '));
      assert.doesNotMatch(res.stderr, /secret-pw/, 'the password is never printed');
      assert.doesNotMatch(res.stderr, /migration unknown failed|\n\s+at /);
    }
    // A data directory that is a file: the SQLite case names dataDir.
    const file = join(cwd, 'a-file');
    await writeFile(file, 'not a directory');
    const sqlite = await roost(['migrate'], { cwd, env: { ROOST_DATA_DIR: file } });
    assert.equal(sqlite.code, 1);
    assert.match(
      sqlite.stderr,
      /cannot open the SQLite database .*a-file\/roost\.db: make dataDir \(ROOST_DATA_DIR\) a directory this user/,
    );
  });

  test('a port in use names it and the setting; a host that is not this machine names host', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const res = await run(['serve'], { ROOST_PORT: String(port), ROOST_HOST: '127.0.0.1' });
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use by another program .*ROOST_PORT`));
    } finally {
      blocker.close();
    }
    const foreign = await run(['serve'], { ROOST_PORT: '0', ROOST_HOST: '192.0.2.1' });
    assert.equal(foreign.code, 1, foreign.stderr);
    assert.match(foreign.stderr, /host 192\.0\.2\.1 is not an address of this machine: set host \(ROOST_HOST\)/);
  });

  test('a roost.config.json that is not JSON exits 1', async () => {
    const dir = join(cwd, 'brokenjson');
    await mkdir(dir);
    await writeFile(join(dir, 'roost.config.json'), '{ "port": ');
    const res = await roost(['migrate'], { cwd: dir });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /roost\.config\.json/);
  });
});
