import type { Backups } from './backups/index.js';
import type { Clock } from './core/clock.js';
import type { Config } from './core/config.js';
import type { ExtensionJobs } from './extend/jobs.js';
import type { FileStores } from './filestore/index.js';
import { programCaller } from './users/index.js';

/**
 * Roost's own scheduled work, as jobs of the queue (extend/jobs.ts) that `openServices`
 * (services.ts) sets up: each tick is added once across processes, so it runs in one of them.
 */

export const BACKUP_JOB = 'roost.backup';
export const CHECK_JOB = 'roost.backup-check';

/** The audit log's retention, and the sweeps of unfinished resumable and direct uploads. */
export function scheduleUpkeep(
  jobs: ExtensionJobs,
  deps: {
    config: Config;
    clock: Clock;
    audit: { sweep(before: number): Promise<unknown> };
    fileStores: FileStores;
    uploads: { sweepExpired(): Promise<unknown> };
  },
): void {
  const { config, clock, audit, fileStores, uploads } = deps;
  // `audit.retentionDays`: older lines go every night.
  jobs.schedule('roost.audit-retention', '17 3 * * *', () =>
    audit.sweep(clock.now() - config.audit.retentionDays * 86_400_000),
  );
  // Resumable uploads not complete within their store's `uploadExpirySeconds` go, every quarter hour.
  jobs.schedule('roost.upload-expiry', '*/15 * * * *', () => uploads.sweepExpired());
  // What unfinished direct uploads left in the buckets (filestore/direct-ops.ts `sweepDirect`),
  // every ten minutes; only where a store takes direct uploads.
  const direct = fileStores.names.filter((name) => config.fileStores[name]?.direct?.uploads);
  if (direct.length > 0)
    jobs.schedule('roost.direct-upload-sweep', '*/10 * * * *', async () => {
      for (const name of direct) await fileStores.get(name)?.sweepDirect(programCaller('roost').principal);
    });
}

/**
 * Backups and their restore check as jobs of the queue (extend/jobs.ts): one asked for on the
 * backups page runs in whichever process claims it; the schedules of `backups.schedule` and
 * `backups.checkSchedule` add each tick once across processes, and their kinds are exclusive,
 * so two backups never run at once. None is retried: the next tick or a click tries again.
 */
export function scheduleBackups(config: Config, jobs: ExtensionJobs, backups: Backups): void {
  const { schedule, checkSchedule, timeoutSeconds } = config.backups;
  const options = { retries: 0, timeoutMs: timeoutSeconds * 1000 };
  jobs.define(BACKUP_JOB, () => backups.make('manual'), options);
  jobs.define(CHECK_JOB, () => backups.check(), options);
  if (schedule) jobs.schedule(`${BACKUP_JOB}-scheduled`, schedule, () => backups.make('scheduled'), options);
  if (checkSchedule) jobs.schedule(`${CHECK_JOB}-scheduled`, checkSchedule, () => backups.check(), options);
}
