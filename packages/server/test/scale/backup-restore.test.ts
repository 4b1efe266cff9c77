import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely, type Migration } from 'kysely';
import { backup, restore } from '../../src/backups/backup-archive.js';
import { parseConfig, type Config, type ConfigInput } from '../../src/core/config.js';
import { createRoost } from '../../src/roost.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest, migrations } from '../../src/storage/migrations/index.js';
import { generatedBody, rawRequest } from '../helpers/file-requests.js';
import { runRoost } from '../helpers/roost-command.js';
import { sharedS3 } from '../helpers/s3-server.js';
import { createPostgresDatabase, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';
import { onPostgres } from './scale-helpers.js';
import { programCaller } from '../../src/users/index.js';

const BIG = 6 * 1024 * 1024; // above the S3 part size of the tests: a multipart upload

/** `roost <args>` in a process of its own, configured by a roost.config.json in `cwd`. */
const roost = (args: string[], cwd: string) => runRoost(args, { cwd });

/**
 * A place for a restored Roost: an empty data directory, and in the PostgreSQL pass a new database and a new bucket.
 */
async function freshTarget(): Promise<{ input: ConfigInput; config: Config; cwd: string; drop(): Promise<void> }> {
  const cwd = await mkdtemp(join(tmpdir(), 'roost-restore-'));
  const pgDb = onPostgres ? await createPostgresDatabase() : null;
  const input: ConfigInput = {
    dataDir: join(cwd, 'data'),
    logLevel: 'silent',
    ...(pgDb ? { ...pgDb.settings, blobs: await (await sharedS3()).newBucket() } : {}),
    fileStores: { files: {}, avatars: { read: 'sys:everyone' } },
  };
  await writeFile(join(cwd, 'roost.config.json'), JSON.stringify(input));
  return {
    input,
    config: parseConfig(input, cwd),
    cwd,
    async drop() {
      await pgDb?.drop();
      await rm(cwd, { recursive: true, force: true });
    },
  };
}

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('base64url');
async function bigHash(): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of generatedBody(BIG)) h.update(chunk as Buffer);
  return h.digest('base64url');
}

describe('roost backup and roost restore', () => {
  let source: TestServer;
  let work: string;
  let aliceToken: string;
  before(async () => {
    source = await startServer({ fileStores: { files: {}, avatars: { read: 'sys:everyone' } } });
    work = await mkdtemp(join(tmpdir(), 'roost-backup-'));
    // What a backup must carry: accounts, groups, permissions, items, files (small, empty, multipart).
    aliceToken = await source.createUser('alice', { groups: ['editors'] });
    await source.createUser('bob');
    await source.grant('signupDirect', ['sys:everyone']);
    for (let i = 0; i < 30; i++)
      await source.request('/data/api/setItem', { key: `k${i}`, value: `value ${i} ✓` }, { token: aliceToken });
    await source.request('/files/@newItem', { name: 'docs', type: 'd' }, { token: aliceToken });
    await source.request('/files/docs/readme.txt/@write', undefined, {
      token: aliceToken,
      method: 'PUT',
      raw: 'hello backup',
    });
    await source.request('/files/docs/empty.txt/@write', undefined, { token: aliceToken, method: 'PUT', raw: '' });
    const big = await rawRequest(source.url, '/avatars/big.bin/@write', {
      method: 'PUT',
      headers: { 'x-auth-token': aliceToken, 'content-type': 'application/octet-stream' },
      body: generatedBody(BIG),
    });
    assert.equal(big.status, 200, big.text);
    // A collection made over the API, with a unique field: its records' own table and its index.
    const admin = await source.adminToken();
    const notes = {
      name: 'notes',
      schema: { type: 'object', properties: { slug: { type: 'string', 'x-unique': true }, n: { type: 'integer' } } },
      rules: { list: '', view: '', create: '' },
    };
    assert.equal((await source.request('/api/collections', notes, { token: admin })).status, 201);
    for (let i = 0; i < 3; i++)
      await source.request('/api/collections/notes/records', { slug: `s${i}`, n: i }, { token: aliceToken });
    await writeFile(join(work, 'roost.config.json'), JSON.stringify(source.roost.config));
  });
  after(async () => {
    await source.close();
    await rm(work, { recursive: true, force: true });
  });

  /** Everything written in `before` reads back from the restored Roost. */
  async function assertRestored(target: TestServer, options: { sessions: boolean }) {
    const token = await target.users('token', { identity: 'alice', password: PASSWORD });
    assert.equal(token.body.result, true, 'alice signs in with her password');
    const t = token.body.token as string;
    assert.deepEqual((await target.users('profile', {}, { token: t })).body.groups, ['editors']);
    assert.equal(
      (await target.users('identity', {}, { token: aliceToken })).status,
      options.sessions ? 200 : 401,
      'the old session',
    );
    const perms = await target.users(
      'getPermissions',
      {},
      {
        token: await target
          .users('token', { identity: 'admin', password: PASSWORD })
          .then((r) => r.body.token as string),
      },
    );
    assert.ok(JSON.stringify(perms.body).includes('signupDirect'));
    const items = await target.request('/data/api/list', { size: 100 }, { token: t });
    assert.equal(items.body.total, 30);
    assert.equal((await target.request('/data/api/getItem', { key: 'k7' }, { token: t })).body.value, 'value 7 ✓');
    // A new item gets a fresh id (PostgreSQL's sequence moved past the restored ones).
    const added = await target.request('/data/api/newItem', { key: 'after-restore', value: 'x' }, { token: t });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    // The counts came from the backup, not counted again while the rows went in; the triggers
    // that keep them are back (storage/snapshot.ts `withoutTriggers`).
    assert.equal((await target.request('/data/api/keys', { size: 0 }, { token: t })).body.total, 31);
    // The collection and its records, across engines too; its unique index made again.
    const notes = await target.request('/api/collections/notes/records?sort=n&total=true', undefined, {
      method: 'GET',
    });
    assert.deepEqual(
      notes.body.items.map((r: { slug: string; n: number }) => [r.slug, r.n]),
      [
        ['s0', 0],
        ['s1', 1],
        ['s2', 2],
      ],
    );
    const twice = await target.request('/api/collections/notes/records', { slug: 's1' }, { token: t });
    assert.equal(twice.status, 409, JSON.stringify(twice.body));
    const readme = await fetch(`${target.url}/files/docs/readme.txt`, { headers: { 'x-auth-token': t } });
    assert.equal(await readme.text(), 'hello backup');
    assert.equal(readme.headers.get('etag'), `"${sha('hello backup')}"`);
    assert.equal(
      await (await fetch(`${target.url}/files/docs/empty.txt`, { headers: { 'x-auth-token': t } })).text(),
      '',
    );
    const big = Buffer.from(await (await fetch(`${target.url}/avatars/big.bin`)).arrayBuffer());
    assert.equal(big.length, BIG);
    assert.equal(sha(big), await bigHash());
    const ranged = await fetch(`${target.url}/avatars/big.bin`, { headers: { range: 'bytes=10-19' } });
    assert.equal(ranged.status, 206);
  }

  test('the CLI backs up to a directory and restores into a new instance (sessions left out)', async () => {
    await source.adminToken();
    const dir = join(work, 'backup-dir');
    const made = await roost(['backup', dir, '--progress'], work);
    assert.equal(made.code, 0, made.stderr);
    assert.match(
      made.stdout,
      /backup written to .*: \d+ tables, \d+ rows, 3 files \(\d+ bytes, [\d.]+ (B|KiB|MiB)\) from \w+ in [\d.]+ s/,
    );
    // Progress goes to standard error (drawn on a terminal, here forced), ending with the totals.
    const lines = made.stderr.trim().split('\n');
    assert.match(lines.at(-1) ?? '', /^backup: \d+ rows, 3 files, [\d.]+ (KiB|MiB)$/);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
      tables: Array<{ name: string }>;
      migrations: string[];
    };
    for (const table of ['users', 'sessions', 'permissions', 'datastore_items', 'file_entries'])
      assert.ok(
        manifest.tables.some((t) => t.name === table),
        table,
      );
    assert.deepEqual(manifest.migrations, Object.keys(migrations));
    assert.equal((await readdir(join(dir, 'blobs'))).length, 3);

    const target = await freshTarget();
    try {
      const restored = await roost(['restore', dir, '--progress'], target.cwd);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stderr.trim().split('\n').at(-1) ?? '', /^restore: \d+ rows, 3 files, [\d.]+ (KiB|MiB)$/);
      assert.match(restored.stdout, /restored .* 3 files .*\(left out: sessions, user_tokens/);
      await assert.rejects(restore(target.config, dir), /not empty/);
      const server = await startServer(target.input);
      try {
        await assertRestored(server, { sessions: false });
      } finally {
        await server.close();
      }
    } finally {
      await target.drop();
    }
  });

  test('a .tar.gz archive round trip keeps sessions with keepSessions', async () => {
    const file = join(work, 'backup.tar.gz');
    await backup(source.roost.config, file);
    const target = await freshTarget();
    try {
      await restore(target.config, file, { keepSessions: true });
      const server = await startServer(target.input);
      try {
        await assertRestored(server, { sessions: true });
      } finally {
        await server.close();
      }
    } finally {
      await target.drop();
    }
  });

  test('a table a later migration adds is in the backup and restored, with no list to update', async () => {
    const extra: Record<string, Migration> = {
      ...migrations,
      '2099-01-01-01-extra': {
        // biome-ignore lint/suspicious/noExplicitAny: a migration's signature (storage/migrations)
        up: async (db: Kysely<any>) => {
          await db.schema
            .createTable('extra_notes')
            .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
            .addColumn('user_id', 'varchar(64)', (c) => c.references('users.id'))
            .addColumn('body', 'text')
            .execute();
        },
      },
    };
    const s = await startServer();
    const target = await freshTarget();
    const file = join(work, 'extra.tar');
    try {
      await s.createUser('carol');
      await migrateToLatest(s.roost.db as Kysely<unknown>, extra);
      const carol = await sql<{ id: string }>`select id from users where name = 'carol'`.execute(s.roost.db);
      await sql`insert into extra_notes (id, user_id, body)
        values ('n1', ${carol.rows[0]!.id}, 'a note'), ('n2', null, 'another')`.execute(s.roost.db);
      const manifest = await backup(s.roost.config, file, { migrations: extra });
      assert.deepEqual(
        manifest.tables.find((t) => t.name === 'extra_notes'),
        { name: 'extra_notes', rows: 2 },
      );
      // The new table references users: it comes after them.
      assert.ok(
        manifest.tables.findIndex((t) => t.name === 'extra_notes') >
          manifest.tables.findIndex((t) => t.name === 'users'),
      );
      await assert.rejects(restore(target.config, file), /newer or different Roost/);
      await restore(target.config, file, { migrations: extra });
      const { db } = openDatabase(target.config);
      try {
        const notes = await sql<{ id: string; body: string }>`select id, body from extra_notes order by id`.execute(db);
        assert.deepEqual(
          notes.rows.map((r) => r.body),
          ['a note', 'another'],
        );
      } finally {
        await db.destroy();
      }
    } finally {
      await s.close();
      await target.drop();
    }
  });

  test('a backup of SQLite with files on disk restores into PostgreSQL with files on S3', {
    skip: onPostgres ? false : 'needs the PostgreSQL pass',
  }, async () => {
    const dataDir = join(work, 'sqlite-source');
    const lite = await createRoost(parseConfig({ dataDir, logLevel: 'silent', rateLimit: { max: 10_000 } }));
    const target = await freshTarget();
    const file = join(work, 'from-sqlite.tar');
    try {
      assert.equal(lite.dialect, 'sqlite');
      const url = await lite.listen({ port: 0, host: '127.0.0.1' });
      await lite.users.createUser(programCaller('test'), {
        name: 'dora',
        email: 'dora@example.com',
        password: PASSWORD,
        realname: 'Dora',
        data: '',
        notify: false,
        groups: [],
        state: 'active',
        pending: null,
      });
      const token = (
        (await (
          await fetch(`${url}/users/api/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ identity: 'dora', password: PASSWORD }),
          })
        ).json()) as { token: string }
      ).token;
      const headers = { 'x-auth-token': token, 'content-type': 'application/json' };
      await fetch(`${url}/data/api/setItem`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ key: 'from', value: 'sqlite' }),
      });
      await fetch(`${url}/files/note.txt/@write`, {
        method: 'PUT',
        headers: { 'x-auth-token': token },
        body: 'on disk',
      });
      await backup(lite.config, file);
    } finally {
      await lite.close();
    }
    try {
      await restore(target.config, file);
      const server = await startServer(target.input);
      try {
        assert.equal(server.roost.dialect, 'postgres');
        const token = (await server.users('token', { identity: 'dora', password: PASSWORD })).body.token as string;
        assert.equal((await server.request('/data/api/getItem', { key: 'from' }, { token })).body.value, 'sqlite');
        assert.equal(
          await (await fetch(`${server.url}/files/note.txt`, { headers: { 'x-auth-token': token } })).text(),
          'on disk',
        );
        assert.equal(server.roost.config.blobs.kind, 's3');
      } finally {
        await server.close();
      }
    } finally {
      await target.drop();
    }
  });

  test('a backup directory must be new or empty; a restore needs a backup', async () => {
    const taken = join(work, 'taken');
    await backup(source.roost.config, taken);
    await assert.rejects(backup(source.roost.config, taken), /exists/);
    const target = await freshTarget();
    try {
      await assert.rejects(restore(target.config, work), /no manifest\.json/);
      await assert.rejects(restore(target.config, join(work, 'nothing-here')), /does not exist/);
    } finally {
      await target.drop();
    }
  });

  test('a damaged backup is named as such, with where it breaks, and restores nothing', async () => {
    const good = join(work, 'good.tar');
    await backup(source.roost.config, good);
    const bytes = await readFile(good);
    const damaged = {
      'not-gzip.tar.gz': Buffer.from('this is not gzip'),
      'cut.tar.gz': (await import('node:zlib')).gzipSync(bytes).subarray(0, 200),
      'noise.tar': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
      'cut.tar': bytes.subarray(0, 1536),
      // A flipped bit in the first header (the entry's name).
      'flipped.tar': Buffer.concat([bytes.subarray(0, 10), Buffer.from([bytes[10]! ^ 0x01]), bytes.subarray(11)]),
    };
    const target = await freshTarget();
    try {
      for (const [name, contents] of Object.entries(damaged)) {
        const file = join(work, name);
        await writeFile(file, contents);
        await assert.rejects(
          restore(target.config, file),
          /is not a (gzip file|tar archive) or is damaged|ends early|damaged/,
          name,
        );
      }
      // A directory backup whose files were edited by hand.
      const dir = join(work, 'edited');
      await backup(source.roost.config, dir);
      const table = join(dir, 'tables', 'users.jsonl');
      await writeFile(table, `${await readFile(table, 'utf8')}{"id": oops\n`);
      await assert.rejects(restore(target.config, dir), /tables\/users\.jsonl line \d+ is damaged/);
      await writeFile(join(dir, 'manifest.json'), '{"format": "roost-backup", ');
      await assert.rejects(restore(target.config, dir), /manifest\.json is damaged/);
      // The failed attempts left the target empty: a good backup restores into it.
      const cli = await roost(['restore', join(work, 'not-gzip.tar.gz')], target.cwd);
      assert.equal(cli.code, 1);
      assert.match(
        cli.stderr,
        /^roost: .*not-gzip\.tar\.gz is not a gzip file or is damaged \(incorrect header check\)/,
      );
      await restore(target.config, good);
    } finally {
      await target.drop();
    }
  });
});
