import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely, Migration } from 'kysely';
import type { AuditLog } from '../core/audit.js';
import type { Clock } from '../core/clock.js';
import type { Cause } from '../core/events.js';
import { parseConfig, type Config } from '../core/config.js';
import { RoostError } from '../core/errors.js';
import { backendGrants } from '../core/grants.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/permissions.js';
import type { BackupRun, BackupRunStore } from '../storage/backup-run-store.js';
import type { BackupTarget, StoredArchive } from '../storage/backup-target.js';
import type { Dialect } from '../storage/database.js';
import { connectDatabase } from '../storage/database-errors.js';
import { tableCounts } from '../storage/snapshot.js';
import { backup, restore, type Progress } from './backup-archive.js';

/**
 * Backups as the server makes them (issue 42, item 3; docs/operations.md, "Backups"): the archive
 * of `roost backup` (backups/backup-archive.ts) made in a temporary folder, stored in the backup
 * target (storage/backup-target.ts: a folder or an S3 bucket), then the oldest archives beyond the
 * retention deleted; the restore check, which restores the newest archive into a scratch SQLite
 * database (an archive is portable between the engines, storage/snapshot.ts) and compares its
 * rows with the archive's manifest. Each run and check is a row of `backup_runs`
 * (storage/backup-run-store.ts) with its progress, read by every process's page and /metrics.
 * The runs themselves are jobs of the queue (services.ts defines them: once across processes).
 *
 * Restoring over a running server is not offered: `roost restore` restores into an empty
 * database with the server stopped; the page names what that replaces and tells the steps.
 */

/** The archives this service made: their names sort by time, and tell the kind. */
const OURS = /^roost-backup-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)-(scheduled|manual)-[0-9a-f]{6}\.tar\.gz$/;
const DAY_MS = 86_400_000;
/** A running run is taken for cut off this long after its time limit (the job queue's lease margin). */
const STALE_MARGIN_MS = 60_000;
/** A run's progress is written at most this often. */
const PROGRESS_MS = 500;

export interface BackupsDeps {
  config: Config;
  db: Kysely<unknown>;
  dialect: Dialect;
  /** Every migration (a backup's schema must be one this server knows). */
  migrations: Readonly<Record<string, Migration>>;
  runs: BackupRunStore;
  target: BackupTarget;
  clock: Clock;
  /**
   * Adds the job that makes a backup or runs a check, in whichever process claims it (services.ts);
   * `cause`, the administrator who asked, gives it their request's id.
   */
  enqueue(work: 'backup' | 'check', cause?: Cause): Promise<string>;
  /** Backups and checks added and not yet finished (running ones included), from the queue. */
  queued(): Promise<number>;
  /**
   * Where an administrator's backup actions are recorded, each its own line (`backup.start`,
   * `backup.download`, `backup.delete`, naming the archive), as the request's actor (core/audit.ts).
   */
  audit: AuditLog;
}

/** An archive in the target, with what its run recorded (absent for an archive made elsewhere). */
export interface ArchiveView extends StoredArchive {
  kind: 'scheduled' | 'manual' | 'other';
  run: BackupRun | undefined;
}

/** What /metrics tells of backups. */
export interface BackupHealth {
  /** When the newest backup that succeeded finished (ms), or null. */
  lastBackup: number | null;
  lastCheck: { at: number; ok: boolean } | null;
}

export interface Backups {
  /** Where archives go, for the page. */
  readonly where: string;
  /** The archives in the target, newest first. */
  archives(caller: Principal): Promise<ArchiveView[]>;
  /** The newest backup runs and checks, running ones with their progress. */
  runs(caller: Principal, limit: number): Promise<BackupRun[]>;
  /** Backups and checks asked for and not finished: the page follows them until they are. */
  queued(caller: Principal): Promise<number>;
  /** Adds a backup (or a check) to run now; resolves to the job's id. */
  startNow(caller: Principal, work: 'backup' | 'check'): Promise<string>;
  download(caller: Principal, name: string): Promise<Readable>;
  remove(caller: Principal, name: string): Promise<void>;
  /** The rows of every table now: what a restore would replace. */
  currentCounts(caller: Principal): Promise<Record<string, number>>;
  /** Makes a backup (the job's work). */
  make(kind: 'scheduled' | 'manual'): Promise<BackupRun>;
  /** Restores the newest archive into a scratch database and compares (the job's work). */
  check(): Promise<BackupRun>;
  health(): Promise<BackupHealth>;
  close(): void;
}

const notFound = () => new RoostError('not_found', 'not_found', 'There is no such backup.');
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const byNewest = (a: StoredArchive, b: StoredArchive) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);

export function createBackups(deps: BackupsDeps): Backups {
  const { config, runs, target, clock } = deps;
  const administer = (caller: Principal) => backendGrants(caller).require('administer');

  async function known(name: string): Promise<StoredArchive> {
    const found = (await target.list()).find((a) => a.name === name);
    if (!found) throw notFound();
    return found;
  }

  /** Writes a run's progress at most every PROGRESS_MS; `flush` waits for the last write. */
  function progressWriter(id: string) {
    let last = 0;
    let writing: Promise<void> = Promise.resolve();
    let latest: Progress = { rows: 0, files: 0, bytes: 0 };
    return {
      update(progress: Progress) {
        latest = { ...progress };
        const now = clock.now();
        if (now - last < PROGRESS_MS) return;
        last = now;
        writing = writing.then(() => runs.progress(id, latest)).catch(() => {});
      },
      async flush() {
        await writing;
        await runs.progress(id, latest);
      },
    };
  }

  /**
   * A run still `running` past its time limit was cut off: its process stopped (a crash, a
   * kill) or the queue gave up on it. Shown as failed, so the page stops following it.
   */
  function settled(run: BackupRun): BackupRun {
    const limitMs = config.backups.timeoutSeconds * 1000 + STALE_MARGIN_MS;
    if (run.state !== 'running' || clock.now() - run.started < limitMs) return run;
    const { timeoutSeconds } = config.backups;
    return { ...run, state: 'failed', error: `did not finish within ${timeoutSeconds} s: its process stopped` };
  }

  /** Deletes our archives beyond `keep` and older than `keepDays`, never `newest`. */
  async function retain(newest: string): Promise<void> {
    const { keep, keepDays } = config.backups;
    const cutoff = keepDays === undefined ? Number.NEGATIVE_INFINITY : clock.now() - keepDays * DAY_MS;
    const ours = (await target.list()).filter((a) => OURS.test(a.name)).sort(byNewest);
    for (const [i, archive] of ours.entries()) {
      if (archive.name === newest) continue;
      const made = Date.parse(stampTime(archive.name));
      if (i >= keep || made < cutoff) await target.remove(archive.name);
    }
  }

  return {
    where: target.where,

    async archives(caller) {
      administer(caller);
      const [stored, made] = await Promise.all([target.list(), runs.list(['scheduled', 'manual'], 1000)]);
      const runOf = new Map(made.filter((r) => r.state === 'done').map((r) => [r.name, r]));
      return stored.sort(byNewest).map((a) => ({
        ...a,
        kind: (OURS.exec(a.name)?.[2] as 'scheduled' | 'manual' | undefined) ?? 'other',
        run: runOf.get(a.name),
      }));
    },

    async runs(caller, limit) {
      administer(caller);
      return (await runs.list(['scheduled', 'manual', 'check'], limit)).map(settled);
    },

    async queued(caller) {
      administer(caller);
      return deps.queued();
    },

    async startNow(caller, work) {
      administer(caller);
      const job = await deps.enqueue(work, caller);
      await deps.audit.record({ action: 'backup.start', target: work, after: { job } });
      return job;
    },

    async download(caller, name) {
      administer(caller);
      await known(name);
      // A backup holds every table: who took one away is worth a line.
      await deps.audit.record({ action: 'backup.download', target: name });
      return target.get(name);
    },

    async remove(caller, name) {
      administer(caller);
      await known(name);
      await target.remove(name);
      await deps.audit.record({ action: 'backup.delete', target: name });
    },

    async currentCounts(caller) {
      administer(caller);
      return tableCounts(deps.db, deps.dialect);
    },

    async make(kind) {
      const id = newId();
      const started = clock.now();
      const stamp = new Date(started).toISOString().replace(/[:.]/g, '-');
      const name = `roost-backup-${stamp}-${kind}-${randomBytes(3).toString('hex')}.tar.gz`;
      await runs.start({ id, kind, name, started });
      const work = await mkdtemp(join(tmpdir(), 'roost-backup-'));
      const progress = progressWriter(id);
      try {
        const file = join(work, name);
        const manifest = await backup(config, file, { migrations: deps.migrations, onProgress: progress.update });
        await progress.flush();
        const size = await target.put(name, file);
        const tables = Object.fromEntries(manifest.tables.map((t) => [t.name, t.rows]));
        await runs.finish(id, { state: 'done', finished: clock.now(), size, tables, error: null });
        await retain(name);
      } catch (err) {
        await progress.flush().catch(() => {});
        await runs.finish(id, {
          state: 'failed',
          finished: clock.now(),
          size: null,
          tables: null,
          error: message(err),
        });
        throw err;
      } finally {
        await rm(work, { recursive: true, force: true });
      }
      return (await runs.get(id))!;
    },

    async check() {
      const newest = (await target.list()).sort(byNewest)[0];
      if (!newest) throw new Error('there is no backup to check yet');
      const id = newId();
      await runs.start({ id, kind: 'check', name: newest.name, started: clock.now() });
      const scratch = await mkdtemp(join(tmpdir(), 'roost-backup-check-'));
      try {
        const tables = await restoredCounts(newest.name, scratch);
        await runs.finish(id, { state: 'done', finished: clock.now(), size: newest.size, tables, error: null });
      } catch (err) {
        // The scratch copy's path means nothing to a reader: the archive's name instead.
        const said = message(err).replaceAll(join(scratch, newest.name), newest.name);
        const error = said.includes(newest.name) ? said : `${newest.name}: ${said}`;
        await runs.finish(id, { state: 'failed', finished: clock.now(), size: newest.size, tables: null, error });
        throw err;
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
      return (await runs.get(id))!;
    },

    async health() {
      const [backups, checks] = await Promise.all([
        runs.list(['scheduled', 'manual'], 20).then((list) => list.map(settled)),
        runs.list(['check'], 20).then((list) => list.map(settled)),
      ]);
      const done = backups.find((r) => r.state === 'done');
      const check = checks.find((r) => r.state !== 'running');
      return {
        lastBackup: done?.finished ?? null,
        lastCheck: check ? { at: check.finished ?? check.started, ok: check.state === 'done' } : null,
      };
    },

    close: () => target.close(),
  };

  /**
   * The archive `name` restored into a scratch SQLite database under `scratch`, with its files
   * in a scratch folder; its tables counted and compared with the manifest. Rejects with what
   * differs, or with the restore's own refusal (a damaged archive says where).
   */
  async function restoredCounts(name: string, scratch: string): Promise<Record<string, number>> {
    const file = join(scratch, name);
    await pipeline(await target.get(name), createWriteStream(file));
    const stores = Object.fromEntries(Object.keys(config.fileStores).map((store) => [store, {}]));
    const scratchConfig = parseConfig(
      { dataDir: join(scratch, 'data'), durability: 'fast', logLevel: 'silent', fileStores: stores },
      scratch,
    );
    // Sessions and single-use tokens too: every table is compared.
    const summary = await restore(scratchConfig, file, { migrations: deps.migrations, keepSessions: true });
    const { db, dialect } = await connectDatabase(scratchConfig);
    let counts: Record<string, number>;
    try {
      counts = await tableCounts(db, dialect);
    } finally {
      await db.destroy();
    }
    const differ = summary.manifest.tables
      .filter((t) => counts[t.name] !== t.rows)
      .map((t) => `${t.name}: ${t.rows} in the backup, ${counts[t.name] ?? 0} restored`);
    if (summary.blobs !== summary.manifest.blobs.count)
      differ.push(`files: ${summary.manifest.blobs.count} in the backup, ${summary.blobs} restored`);
    if (differ.length > 0) throw new Error(`the restored copy differs: ${differ.join('; ')}`);
    return Object.fromEntries(summary.manifest.tables.map((t) => [t.name, t.rows]));
  }
}

/** The ISO time of an archive name of ours (`OURS`). */
function stampTime(name: string): string {
  const stamp = OURS.exec(name)?.[1] ?? '';
  const [date = '', time = ''] = stamp.split('T');
  const [h, m, s, ms] = time.replace(/Z$/, '').split('-');
  return `${date}T${h}:${m}:${s}.${ms}Z`;
}
