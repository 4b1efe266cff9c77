import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { restore } from '../../src/backups/backup-archive.js';
import { parseConfig, type ConfigInput } from '../../src/core/config.js';
import { connectDatabase } from '../../src/storage/database-errors.js';
import { tableCounts } from '../../src/storage/snapshot.js';
import { authCookie, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { sharedS3 } from '../helpers/s3-server.js';
import { startServer, type TestServer } from '../helpers/test-server.js';
import { programCaller } from '../../src/users/index.js';

const ADMIN = programCaller('test').principal;

/**
 * The server's backups (backups/backups-service.ts; docs/operations.md, "Backups"): started on
 * the admin backups page and run as a job, with its progress recorded; listed with size, time
 * and kind; downloaded (and the download restores); deleted; kept by retention; the restore
 * check passes on a good archive and fails, clearly, on a damaged one, on the page and in
 * /metrics, with nothing replaced; an S3 bucket as the target.
 */

async function withServer(input: ConfigInput, run: (s: TestServer, cookie: string) => Promise<void>) {
  const s = await startServer(input);
  try {
    await s.adminToken();
    await run(s, await authCookie(s, 'admin'));
  } finally {
    await s.close();
  }
}

/** What a backup must carry: accounts, items, a file. */
async function someData(s: TestServer): Promise<void> {
  const alice = await s.createUser('alice');
  await s.createUser('bob');
  for (let i = 0; i < 5; i++) await s.request('/data/api/setItem', { key: `k${i}`, value: i }, { token: alice });
  const put = await s.request('/files/hello.txt/@write', undefined, { token: alice, method: 'PUT', raw: 'hello' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
}

/** Posts the page's "Back up now" (or "Check") form as the administrator's browser would. */
async function start(s: TestServer, cookie: string, work: 'backup' | 'check') {
  const page = await getPage(s, '/admin/backups', cookie);
  const posted = await postForm(
    s,
    '/admin/backups',
    { confirm: work, [`${work}$`]: `${work}$`, csrf: csrfOf(page.html) },
    { cookie, headers: { origin: s.url } },
  );
  assert.equal(posted.status, 303, textOf(posted.html));
  await s.roost.jobs.idle();
}

const archiveNames = (html: string) =>
  [...html.matchAll(/href="\/admin\/backups\/([^"/]+)\/download"/g)].map((m) => m[1]!);

/** A fresh, empty place to restore into: an empty data folder (SQLite). */
async function freshConfig(dir: string) {
  return parseConfig({ dataDir: join(dir, 'data'), logLevel: 'silent', durability: 'fast' }, dir);
}

describe('the backups page', () => {
  test('back up now, progress recorded, listed, downloaded (and it restores), restore page, delete', async () => {
    const work = await mkdtemp(join(tmpdir(), 'roost-backups-test-'));
    try {
      await withServer({}, async (s, cookie) => {
        await someData(s);
        const empty = await getPage(s, '/admin/backups', cookie);
        assert.equal(empty.status, 200);
        assert.match(textOf(empty.html), /No backup yet\./);
        assert.match(empty.html, /href="\/admin\/backups"[^>]*>Backups</, 'in the header');

        await start(s, cookie, 'backup');
        const list = await getPage(s, '/admin/backups', cookie);
        const [name] = archiveNames(list.html);
        assert.ok(name, textOf(list.html));
        assert.match(name, /^roost-backup-\d{4}-\d\d-\d\dT[\d-]+Z-manual-[0-9a-f]{6}\.tar\.gz$/);
        const text = textOf(list.html);
        assert.match(text, /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\s+manual\s+[\d.]+ (B|KB|kB|KiB)/, text);
        assert.match(text, /manual backup\s+\S+\s+done/);
        // The run recorded its progress: every row and the file.
        const [run] = await s.roost.backups.runs(ADMIN, 1);
        assert.equal(run?.state, 'done');
        assert.equal(run?.files, 1);
        assert.ok((run?.rows ?? 0) >= 7, `rows ${run?.rows}`);
        assert.equal(run?.tables?.users, 3);
        assert.equal(run?.tables?.datastore_items, 5);

        // Downloaded, it is the archive `roost restore` takes.
        const res = await fetch(`${s.url}/admin/backups/${name}/download`, { headers: { cookie } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/gzip');
        assert.match(
          res.headers.get('content-disposition') ?? '',
          new RegExp(`filename="${name.replace(/\./g, '\\.')}"`),
        );
        const file = join(work, name);
        await writeFile(file, Buffer.from(await res.arrayBuffer()));
        const target = await freshConfig(join(work, 'restored'));
        const summary = await restore(target, file);
        assert.equal(summary.tables.find((t) => t.name === 'users')?.rows, 3);
        assert.equal(summary.blobs, 1);

        // The restore page names what would be replaced, now and in the backup, and tells the steps.
        await s.createUser('carol');
        const restorePage = textOf((await getPage(s, `/admin/backups/${name}/restore`, cookie)).html);
        assert.match(restorePage, /Users\s+4\s+3/);
        assert.match(restorePage, /Data store items\s+5\s+5/);
        assert.match(restorePage, /Files and folders\s+1\s+1/);
        assert.match(restorePage, new RegExp(`roost restore ${name.replace(/\./g, '\\.')}`));

        // Not for a user who does not administer; an unknown name is a page's 404.
        const userCookie = await authCookie(s, 'alice');
        assert.equal((await getPage(s, '/admin/backups', userCookie)).status, 403);
        assert.equal(
          (await fetch(`${s.url}/admin/backups/${name}/download`, { headers: { cookie: userCookie } })).status,
          403,
        );
        const unknown = await getPage(s, '/admin/backups/roost-backup-nope.tar.gz/restore', cookie);
        assert.equal(unknown.status, 404);
        assert.match(textOf(unknown.html), /There is no such backup/);
        assert.equal((await getPage(s, '/admin/backups/..%2Froost.db/download', cookie)).status, 404);

        // Deleted after a confirmation that names it.
        const ask = await getPage(s, `/admin/backups/${name}/delete`, cookie);
        assert.match(textOf(ask.html), new RegExp(`Delete ${name.replace(/\./g, '\\.')}`));
        const deleted = await postForm(
          s,
          `/admin/backups/${name}/delete`,
          { confirm: name, delete$: 'delete$', csrf: csrfOf(ask.html) },
          { cookie, headers: { origin: s.url } },
        );
        assert.equal(deleted.status, 303, textOf(deleted.html));
        assert.deepEqual(await readdir(join(s.roost.config.dataDir, 'backups')), []);
        assert.match(textOf((await getPage(s, '/admin/backups', cookie)).html), /No backup yet\./);

        // Each action is its own line of the audit log, naming the archive, by the administrator.
        const lines = (await s.roost.audit.list({ action: 'backup.', limit: 10 })).reverse();
        assert.deepEqual(
          lines.map((l) => [l.action, l.target, l.actorName]),
          [
            ['backup.start', 'backup', 'admin'],
            ['backup.download', name, 'admin'],
            ['backup.delete', name, 'admin'],
          ],
        );
        assert.equal(
          (await s.roost.audit.list({ action: 'admin.action', limit: 100 })).filter((l) =>
            l.target.startsWith('/admin/backups'),
          ).length,
          0,
          'no second, vaguer line for the same posts',
        );
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  test('retention keeps the newest `keep`, and none older than `keepDays`', async () => {
    await withServer({ backups: { keep: 2 } }, async (s) => {
      const dir = join(s.roost.config.dataDir, 'backups');
      // An archive someone put there by hand is not the server's to delete.
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'mine.tar.gz'), 'not ours');
      const made = [];
      for (let i = 0; i < 3; i++) made.push((await s.roost.backups.make('manual')).name);
      const left = (await readdir(dir)).sort();
      assert.deepEqual(left, [...made.slice(1), 'mine.tar.gz'].sort());
    });
    await withServer({ backups: { keep: 5, keepDays: 1 } }, async (s) => {
      const old = (await s.roost.backups.make('manual')).name;
      const dir = join(s.roost.config.dataDir, 'backups');
      // Two days older by its name (the time the server reads from its own archives' names).
      const older = old.replace(/^roost-backup-\d{4}-\d\d-\d\d/, (p) => {
        const day = new Date(Date.parse(p.slice('roost-backup-'.length)) - 2 * 86_400_000);
        return `roost-backup-${day.toISOString().slice(0, 10)}`;
      });
      await writeFile(join(dir, older), await readFile(join(dir, old)));
      const newest = (await s.roost.backups.make('scheduled')).name;
      assert.deepEqual((await readdir(dir)).sort(), [old, newest].sort());
    });
  });

  test('the restore check passes, fails clearly on a damaged archive: page, metrics, nothing touched', async () => {
    const work = await mkdtemp(join(tmpdir(), 'roost-backups-check-'));
    try {
      await withServer({}, async (s, cookie) => {
        await someData(s);
        const admin = await s.adminToken();
        const metrics = async () => (await s.request('/metrics', undefined, { token: admin })).body as string;
        assert.match(await metrics(), /^roost_backup_check_ok 0$/m, 'none ran yet');
        assert.match(await metrics(), /^roost_backup_last_success_timestamp_seconds 0$/m);

        await start(s, cookie, 'backup');
        await start(s, cookie, 'check');
        const passed = textOf((await getPage(s, '/admin/backups', cookie)).html);
        assert.match(passed, /restore check\s+\S+\s+passed: every table restored with its rows/);
        assert.match(await metrics(), /^roost_backup_check_ok 1$/m);
        assert.match(await metrics(), /^roost_backup_last_success_timestamp_seconds \d+/m);

        // Damage the archive: cut it short, as a copy broken off would be.
        const dir = join(s.roost.config.dataDir, 'backups');
        const [name] = await readdir(dir);
        const bytes = await readFile(join(dir, name!));
        await writeFile(join(dir, name!), bytes.subarray(0, Math.floor(bytes.length / 2)));
        const before = await s.roost.backups.currentCounts(ADMIN);
        await start(s, cookie, 'check');
        const failed = textOf((await getPage(s, '/admin/backups', cookie)).html);
        assert.match(failed, /restore check\s+(\S+)\s+failed\s*:\s*\1 (ends early|is not a gzip file or is damaged)/);
        assert.match(await metrics(), /^roost_backup_check_ok 0$/m);
        // The check touched nothing of the server but its own records: the check's run and its job,
        // and the audit log's line of the administrator's action (admin/admin-actions.ts).
        const own = (counts: Record<string, number>) => ({ ...counts, backup_runs: 0, jobs: 0, audit_log: 0 });
        assert.deepEqual(own(await s.roost.backups.currentCounts(ADMIN)), own(before));

        // `roost restore` of it refuses with the same words and leaves the new database without a row.
        await writeFile(join(work, name!), bytes.subarray(0, Math.floor(bytes.length / 2)));
        const target = await freshConfig(join(work, 'target'));
        await assert.rejects(restore(target, join(work, name!)), /ends early|damaged|not a gzip/);
        const { db, dialect } = await connectDatabase(target);
        try {
          const counts = await tableCounts(db as Kysely<unknown>, dialect);
          assert.deepEqual(
            Object.entries(counts).filter(([, n]) => n > 0),
            [],
          );
        } finally {
          await db.destroy();
        }
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  test('a run its process never finished shows as failed after its time limit; the page stops reloading', async () => {
    await withServer({ backups: { timeoutSeconds: 60 } }, async (s, cookie) => {
      const started = Date.now() - 121_000;
      await s.roost.db
        .insertInto('backup_runs')
        .values({
          ...{ id: 'cut-off', kind: 'manual', name: 'roost-backup-x.tar.gz', state: 'running', started },
          ...{ finished: null, rows: 5, files: 0, bytes: 0, size: null, tables: null, error: null },
        })
        .execute();
      const page = await getPage(s, '/admin/backups', cookie);
      assert.match(textOf(page.html), /manual backup\s+roost-backup-x\.tar\.gz\s+failed\s*: did not finish within/);
      assert.doesNotMatch(page.html, /http-equiv="refresh"/);
    });
  });

  test('an S3 bucket as the target: backed up, listed, downloaded, checked, kept by retention', async () => {
    const bucket = { ...(await (await sharedS3()).newBucket()), prefix: 'backups/' };
    await withServer({ backups: { target: bucket, keep: 1 } }, async (s, cookie) => {
      await someData(s);
      await start(s, cookie, 'backup');
      await start(s, cookie, 'backup');
      const page = await getPage(s, '/admin/backups', cookie);
      assert.match(textOf(page.html), new RegExp(`s3://${bucket.bucket}/backups/`));
      const names = archiveNames(page.html);
      assert.equal(names.length, 1, 'keep 1: the older one is gone from the bucket');
      const res = await fetch(`${s.url}/admin/backups/${names[0]}/download`, { headers: { cookie } });
      assert.equal(res.status, 200);
      const body = Buffer.from(await res.arrayBuffer());
      assert.deepEqual([body[0], body[1]], [0x1f, 0x8b], 'a gzip file');
      const check = await s.roost.backups.check();
      assert.equal(check.state, 'done', check.error ?? '');
      assert.equal(check.name, names[0]);
      assert.equal(check.tables?.users, 3);
    });
  });
});
