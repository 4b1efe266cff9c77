import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.js';

/**
 * The backups' runs and restore checks (`backup_runs`, migration 2026-12-02-03): written by the
 * process that runs one (backups/backups-service.ts), read by every process's backups page and
 * /metrics. The archives themselves are in the backup target (storage/backup-target.ts).
 */

type BackupRunKind = 'scheduled' | 'manual' | 'check';
type BackupRunState = 'running' | 'done' | 'failed';

export interface BackupRun {
  id: string;
  kind: BackupRunKind;
  /** The archive made or checked. */
  name: string;
  state: BackupRunState;
  started: number;
  finished: number | null;
  rows: number;
  files: number;
  bytes: number;
  /** The archive's size once stored. */
  size: number | null;
  /** Rows of each table: a backup's manifest, a check's restored tables. */
  tables: Record<string, number> | null;
  error: string | null;
}

type Row = Selectable<Database['backup_runs']>;

const toRun = (r: Row): BackupRun => ({
  id: r.id,
  kind: r.kind as BackupRunKind,
  name: r.name,
  state: r.state as BackupRunState,
  started: Number(r.started),
  finished: r.finished === null ? null : Number(r.finished),
  rows: Number(r.rows),
  files: Number(r.files),
  bytes: Number(r.bytes),
  size: r.size === null ? null : Number(r.size),
  tables: r.tables === null ? null : (JSON.parse(r.tables) as Record<string, number>),
  error: r.error,
});

export interface BackupRunStore {
  start(run: Pick<BackupRun, 'id' | 'kind' | 'name' | 'started'>): Promise<void>;
  progress(id: string, progress: Pick<BackupRun, 'rows' | 'files' | 'bytes'>): Promise<void>;
  finish(
    id: string,
    outcome: Pick<BackupRun, 'state' | 'finished' | 'size' | 'tables' | 'error'> & Partial<Pick<BackupRun, 'name'>>,
  ): Promise<void>;
  get(id: string): Promise<BackupRun | undefined>;
  /** The newest runs first, of the kinds asked. */
  list(kinds: readonly BackupRunKind[], limit: number): Promise<BackupRun[]>;
}

export function createBackupRunStore(db: Kysely<Database>): BackupRunStore {
  return {
    async start(run) {
      await db
        .insertInto('backup_runs')
        .values({ ...run, state: 'running', finished: null, rows: 0, files: 0, bytes: 0, size: null })
        .execute();
    },
    async progress(id, { rows, files, bytes }) {
      await db.updateTable('backup_runs').set({ rows, files, bytes }).where('id', '=', id).execute();
    },
    async finish(id, outcome) {
      await db
        .updateTable('backup_runs')
        .set({ ...outcome, tables: outcome.tables === null ? null : JSON.stringify(outcome.tables) })
        .where('id', '=', id)
        .execute();
    },
    async get(id) {
      const row = await db.selectFrom('backup_runs').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRun(row) : undefined;
    },
    async list(kinds, limit) {
      const rows = await db
        .selectFrom('backup_runs')
        .selectAll()
        .where('kind', 'in', [...kinds])
        .orderBy('started', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toRun);
    },
  };
}
