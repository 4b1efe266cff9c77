import { sql, type Kysely, type Selectable } from 'kysely';
import type { Job, JobState, JobStore } from '../core/jobs.js';
import { needsRowLocks } from './database.js';
import type { Database } from './schema.js';

type JobRow = Selectable<Database['jobs']>;

const nullableNumber = (n: number | null) => (n === null ? null : Number(n));

const toJob = (r: JobRow): Job => ({
  id: r.id,
  kind: r.kind,
  subject: r.subject,
  payload: r.payload,
  state: r.state as JobState,
  attempts: r.attempts,
  created: Number(r.created),
  runAt: nullableNumber(r.run_at),
  lastStatus: r.last_status,
  lastError: r.last_error,
  finishedAt: nullableNumber(r.finished_at),
  requestId: r.request_id,
});

/**
 * The job queue's table (`jobs`, migration 2026-11-30-01; core/jobs.ts). A worker claims due
 * rows by setting `claimed_until` in one UPDATE over a sub-select; on PostgreSQL the sub-select
 * locks the rows it picks and skips rows another transaction is claiming (`FOR UPDATE SKIP
 * LOCKED`), so two processes never claim one job; on SQLite one process owns the file. A claim
 * whose holder died runs out at `claimed_until` and the job is claimed again.
 */
export function createJobStore(db: Kysely<Database>): JobStore {
  const rowLocks = needsRowLocks(db);
  /** The pending jobs due at `now` that no lease holds: what a worker may claim. */
  const dueUnheld = (now: number) =>
    db
      .selectFrom('jobs')
      .where('state', '=', 'pending')
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]));
  return {
    async add(jobs) {
      if (jobs.length === 0) return;
      await db
        .insertInto('jobs')
        .values(
          jobs.map((j) => ({
            id: j.id,
            kind: j.kind,
            subject: j.subject,
            dedupe_key: j.key,
            payload: j.payload,
            state: 'pending',
            attempts: 0,
            created: j.created,
            run_at: j.runAt,
            claimed_until: null,
            last_status: null,
            last_error: null,
            finished_at: null,
            request_id: j.requestId,
          })),
        )
        // A key taken already: the job is there (the unique index on dedupe_key; nulls never clash).
        .onConflict((oc) => oc.doNothing())
        .execute();
    },

    async claimDue(kind, now, leaseMs, limit) {
      const due = dueUnheld(now)
        .select('id')
        .where('kind', '=', kind)
        .orderBy('run_at')
        .orderBy('created')
        .limit(limit);
      const rows = await db
        .updateTable('jobs')
        .set({ claimed_until: now + leaseMs })
        .where('id', 'in', rowLocks ? due.forUpdate().skipLocked() : due)
        .returningAll()
        .execute();
      return rows.map(toJob).sort((a, b) => a.created - b.created);
    },

    async dueKinds(kinds, now) {
      if (kinds.length === 0) return [];
      // The index jobs_due (kind, state, run_at) bounds the scan to the due pending rows of these kinds.
      const rows = await dueUnheld(now).select('kind').distinct().where('kind', 'in', kinds).execute();
      return rows.map((r) => r.kind);
    },

    async done(id, attempts, at, status, keep) {
      if (!keep) {
        await db.deleteFrom('jobs').where('id', '=', id).execute();
        return;
      }
      await db
        .updateTable('jobs')
        .set({
          state: 'done',
          attempts,
          run_at: null,
          claimed_until: null,
          last_status: status,
          last_error: null,
          finished_at: at,
        })
        .where('id', '=', id)
        .execute();
    },

    async failed(id, attempts, retryAt, status, error) {
      await db
        .updateTable('jobs')
        .set({
          state: retryAt === null ? 'failed' : 'pending',
          attempts,
          run_at: retryAt,
          claimed_until: null,
          last_status: status,
          last_error: error.slice(0, 1000),
        })
        .where('id', '=', id)
        .execute();
    },

    async skip(id, at, reason) {
      await db
        .updateTable('jobs')
        .set({ state: 'skipped', run_at: null, claimed_until: null, last_error: reason, finished_at: at })
        .where('id', '=', id)
        .execute();
    },

    async heldBefore(kind, job, now) {
      const runAt = job.runAt ?? now;
      const row = await db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', kind)
        .where('state', '=', 'pending')
        .where('claimed_until', '>=', now)
        .where((eb) => eb.or([eb('run_at', '<', runAt), eb.and([eb('run_at', '=', runAt), eb('id', '<', job.id)])]))
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async list({ id, kind, state, subject, requestId, limit }) {
      let query = db.selectFrom('jobs').selectAll();
      if (id !== undefined) query = query.where('id', '=', id);
      if (kind !== undefined) query = query.where('kind', '=', kind);
      if (state !== undefined) query = query.where('state', '=', state);
      if (subject !== undefined) query = query.where('subject', '=', subject);
      if (requestId !== undefined) query = query.where('request_id', '=', requestId);
      const rows = await query.orderBy('created', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toJob);
    },

    async retry(id, now) {
      const result = await db
        .updateTable('jobs')
        .set({ state: 'pending', attempts: 0, run_at: now, claimed_until: null })
        .where('id', '=', id)
        .where('state', '=', 'failed')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async removeSubject(kind, subject) {
      await db.deleteFrom('jobs').where('kind', '=', kind).where('subject', '=', subject).execute();
    },

    async counts(now, kind) {
      let query = db
        .selectFrom('jobs')
        .select([
          sql<number>`count(case when state = 'pending' and run_at <= ${now} then 1 end)`.as('due'),
          sql<number>`count(case when state = 'pending' and run_at > ${now} then 1 end)`.as('retrying'),
          sql<number>`count(case when state = 'failed' then 1 end)`.as('failed'),
        ])
        .where('state', 'in', ['pending', 'failed']);
      if (kind !== undefined) query = query.where('kind', '=', kind);
      const row = await query.executeTakeFirstOrThrow();
      return { due: Number(row.due), retrying: Number(row.retrying), failed: Number(row.failed) };
    },
  };
}
