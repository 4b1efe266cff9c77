import { sql, type Kysely } from 'kysely';
import type { Mail, MailQueueStore, QueuedMail } from '../core/mailer.js';
import { needsRowLocks } from './database.js';
import type { Database } from './schema.js';

/**
 * The mail queue's table (`mail_queue`, migration 2026-11-24-02): one row per mail until it is
 * delivered. A worker claims due rows by setting `claimed_until`; on PostgreSQL the claim skips
 * rows another process is claiming at that moment (`FOR UPDATE SKIP LOCKED`), so no mail is sent
 * twice by two processes; on SQLite one process owns the file.
 */
export function createMailQueueStore(db: Kysely<Database>): MailQueueStore {
  const rowLocks = needsRowLocks(db);
  return {
    async enqueue(id, mail, now) {
      await db
        .insertInto('mail_queue')
        .values({
          id,
          kind: mail.kind,
          recipient: mail.to,
          mail: JSON.stringify(mail),
          created: now,
          attempts: 0,
          next_attempt: now,
          claimed_until: null,
          last_error: null,
        })
        .execute();
    },

    async claimDue(now, leaseMs, limit) {
      const due = db
        .selectFrom('mail_queue')
        .select('id')
        .where('next_attempt', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .orderBy('next_attempt')
        .limit(limit);
      const rows = await db
        .updateTable('mail_queue')
        .set({ claimed_until: now + leaseMs })
        .where('id', 'in', rowLocks ? due.forUpdate().skipLocked() : due)
        .returning(['id', 'mail', 'attempts'])
        .execute();
      return rows.map((r): QueuedMail => ({ id: r.id, mail: JSON.parse(r.mail) as Mail, attempts: r.attempts }));
    },

    async delivered(id) {
      await db.deleteFrom('mail_queue').where('id', '=', id).execute();
    },

    async failed(id, attempts, retryAt, error) {
      await db
        .updateTable('mail_queue')
        .set({ attempts, next_attempt: retryAt, claimed_until: null, last_error: error.slice(0, 1000) })
        .where('id', '=', id)
        .execute();
    },

    async counts(now) {
      const row = await db
        .selectFrom('mail_queue')
        .select([
          sql<number>`count(case when next_attempt <= ${now} then 1 end)`.as('due'),
          sql<number>`count(case when next_attempt > ${now} then 1 end)`.as('retrying'),
          sql<number>`count(case when next_attempt is null then 1 end)`.as('failed'),
        ])
        .executeTakeFirstOrThrow();
      return { due: Number(row.due), retrying: Number(row.retrying), failed: Number(row.failed) };
    },
  };
}
