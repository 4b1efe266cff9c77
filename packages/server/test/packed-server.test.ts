import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consumerEnv, consumerProject, pack } from './helpers/packed.js';

/**
 * @roost/server as a newcomer installs it (packages/server/README.md): the three packed
 * tarballs installed with npm into an empty folder, then `npx roost user add` and `roost serve`
 * there. Everything comes from the npm registry as for any project; npm runs no install
 * scripts, and the one that matters, better-sqlite3's native build, is this repository's
 * (the same version, built for this Node: compiling it again would only add minutes).
 */

const root = new URL('../../../', import.meta.url).pathname;
const onPostgres = process.env.ROOST_TEST_DIALECT === 'postgres';
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

function npx(dir: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn('npx', ['--no-install', 'roost', ...args], { cwd: dir, env: consumerEnv(env) });
}

function finished(child: ChildProcess): Promise<{ code: number | null; out: string }> {
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

/**
 * The native addon of `name` in the consumer: none to make when the package ships prebuilt ones,
 * else this repository's build when it is the same version (copied, as npm would have built it),
 * else built there by `npm rebuild`.
 */
async function provideAddon(app: string, name: string): Promise<void> {
  const target = join(app, 'node_modules', name);
  const source = join(root, 'node_modules', name);
  // Not installed in the consumer, or not in this repository: npm skipped it for this Node
  // (better-sqlite3 13 on Node 20, .npmrc engine-strict), and Roost never loads it here.
  if (!existsSync(target) || !existsSync(source)) return;
  // better-sqlite3 13 ships its N-API addon prebuilt for each platform and builds nothing.
  if (existsSync(join(target, 'prebuilds'))) return;
  // Where 13 is there, Node 22 and later never load 12 (src/storage/sqlite-driver.ts).
  if (name === 'better-sqlite3' && NODE_MAJOR >= 22 && existsSync(join(app, 'node_modules', 'better-sqlite3-napi')))
    return;
  const version = async (dir: string) =>
    (JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  if (existsSync(join(source, 'build', 'Release')) && (await version(source)) === (await version(target))) {
    await cp(
      join(source, 'build', 'Release', 'better_sqlite3.node'),
      join(target, 'build', 'Release', 'better_sqlite3.node'),
    );
    return;
  }
  const rebuilt = await finished(spawn('npm', ['rebuild', name], { cwd: app, env: consumerEnv() }));
  assert.equal(rebuilt.code, 0, rebuilt.out);
}

describe('the packed @roost/server in an empty folder', {
  skip: onPostgres ? 'once is enough: the SQLite pass installs it' : false,
}, () => {
  let work: string;
  let app: string;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'roost-packed-server-'));
    const [server, client, forms] = [await pack('server', work), await pack('client', work), await pack('forms', work)];
    app = join(work, 'my-backend');
    await mkdir(app);
    await consumerProject(app, {
      '@roost/server': `file:${server}`,
      '@roost/client': `file:${client}`,
      '@roost/forms': `file:${forms}`,
    });
    for (const name of ['better-sqlite3', 'better-sqlite3-napi']) await provideAddon(app, name);
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  test('npx roost user add makes the first administrator and says where it wrote', async () => {
    const added = await finished(
      npx(app, [
        'user',
        'add',
        '--name',
        'admin',
        '--email',
        'admin@example.com',
        '--password',
        'admin-password-1',
        '--group',
        'admins',
      ]),
    );
    assert.equal(added.code, 0, added.out);
    assert.match(added.out, /sqlite/i);
    assert.match(added.out, new RegExp(join(app, 'data').replaceAll('/', '\\/')));
  });

  test('roost serve answers health, sign-in, admin backend, API docs, browser bundle; SIGTERM stops it', async () => {
    // The bin npx runs, started directly: npx does not hand SIGTERM on to it.
    const child = spawn(process.execPath, [join(app, 'node_modules', '.bin', 'roost'), 'serve'], {
      cwd: app,
      env: consumerEnv({ ROOST_PORT: '0', ROOST_LOG_LEVEL: 'info' }),
    });
    const done = finished(child);
    let log = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${log}`)), 30_000);
      child.stdout?.on('data', (d: Buffer) => {
        log += d.toString();
        const found = /Roost listens on (http:\/\/[^\s"]+)/.exec(log);
        if (found?.[1]) {
          clearTimeout(timer);
          resolve(found[1]);
        }
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${log}`)));
    });
    try {
      assert.equal((await fetch(`${url}/health`)).status, 200);
      assert.equal((await fetch(`${url}/ready`)).status, 200);
      const token = (await (
        await fetch(`${url}/users/api/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ identity: 'admin', password: 'admin-password-1' }),
        })
      ).json()) as { token?: string };
      assert.equal(typeof token.token, 'string');
      const admin = await fetch(`${url}/admin/signin`);
      assert.equal(admin.status, 200);
      assert.match(await admin.text(), /<form/);
      assert.equal((await fetch(`${url}/openapi.json`)).status, 200);
      const docs = await fetch(`${url}/docs/`);
      assert.equal(docs.status, 200);
      const bundle = await fetch(`${url}/static/roost-client.js`);
      assert.equal(bundle.status, 200);
      assert.match(await bundle.text(), /@roost\/client/);
      // The default cost of password hashes is OWASP's: no warning of a weak one.
      assert.doesNotMatch(log, /passwordHashing/);
    } finally {
      child.kill('SIGTERM');
    }
    const { code } = await done;
    assert.equal(code, 0, log);
  });
});
