import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programCaller } from '../../src/users/index.js';
import { startServer } from '../helpers/test-server.js';
import { startBeside } from '../security/support/child-roost.js';
import { eventually, onPostgres } from './scale-helpers.js';

const ADMIN = programCaller('test').principal;
const KIND = 'schedule:roost.backup-scheduled';

/**
 * Scheduled backups (backups/backups-service.ts, scheduled in services.ts through extend/jobs.ts)
 * with two processes on one PostgreSQL database, both configured with a backup every two seconds
 * into one folder: each tick is one job (its idempotency key) and one backup, whichever process
 * claims it; a tick both processes ran would be two backups for one job.
 */
describe('scheduled backups in two processes on one PostgreSQL database', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  test('each tick is backed up once across both processes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'roost-backups-processes-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const backups = {
      schedule: '*/2 * * * * *',
      target: { kind: 'local' as const, dir: join(dir, 'archives') },
      keep: 1000,
    };
    const a = await startServer({ backups });
    cleanup.push(() => a.close());
    await mkdir(join(dir, 'b'));
    const b = await startBeside(a, join(dir, 'b'), { backups });
    cleanup.push(async () => {
      b.process.kill('SIGTERM');
      await b.exited;
    });
    const counts = async () => {
      const jobs = await a.roost.jobs.list(ADMIN, { kind: KIND, state: 'done', limit: 100 });
      const runs = (await a.roost.backups.runs(ADMIN, 100)).filter((r) => r.kind === 'scheduled');
      return { jobs: jobs.length, runs: runs.filter((r) => r.state === 'done').length, all: runs.length };
    };
    await eventually(async () => (await counts()).jobs >= 3, 'three scheduled backups', 30_000);
    // Between ticks, every run done is the one job of its tick.
    await eventually(
      async () => {
        const { jobs, runs, all } = await counts();
        return jobs === runs && runs === all;
      },
      `one backup a tick: ${JSON.stringify(await counts())}`,
      10_000,
    );
    const { runs } = await counts();
    const archives = (await readdir(join(dir, 'archives'))).filter((n) => /-scheduled-[0-9a-f]{6}\.tar\.gz$/.test(n));
    assert.ok(archives.length >= runs, `${archives.length} archives for ${runs} runs`);
    assert.equal(b.lines.filter((l) => /"level":[56]0/.test(l)).length, 0, b.lines.join('\n'));
  });
});
