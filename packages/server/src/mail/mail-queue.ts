import { randomInt } from 'node:crypto';
import type { JobQueue } from '../core/job-queue.js';
import type { Principal } from '../core/permissions.js';
import type { MailQueueCounts, QueuingMailer } from '../core/mailer.js';
import { mailJob } from './mail-job.js';

/**
 * Mail off the request path (docs/operations.md, "Mail"): `send` only adds the mail to the job
 * queue (core/job-queue.ts) as a `mail` job (mail/mail-job.ts delivers it), so no answer waits
 * for SMTP and an answer's timing says nothing about whether a mail went out (`resetPassword`
 * must not tell which accounts exist). Queued mails survive a restart; processes sharing
 * PostgreSQL share them, each sent once.
 */
export interface MailQueue extends QueuingMailer {
  /**
   * Resolves once no `later` work is pending, nothing is due and
   * no job runs in this process (tests, shutdown).
   */
  idle(timeoutMs?: number): Promise<void>;
  /** How many mails wait (`/metrics`), for a caller that administers (JobQueue.counts). */
  counts(caller: Principal): Promise<MailQueueCounts>;
}

const LATER_SPREAD_MS = 50;

export function createMailQueue(jobs: JobQueue, onError: (err: unknown) => void = () => {}): MailQueue {
  const pendingWork = new Set<Promise<void>>();
  return {
    async send(mail, cause) {
      await jobs.add(mailJob, mail, { requestId: cause?.requestId });
    },
    later(work) {
      // After the answer has gone out: a timer, not setImmediate, so the event loop first polls
      // its sockets (with SQLite the work blocks the loop for its writes). The moment is drawn
      // from LATER_SPREAD_MS so that a request that follows a `resetPassword` cannot tell by its
      // own wait whether that one found an account (docs/security.md, "Mail").
      const done: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, randomInt(1, LATER_SPREAD_MS)))
        .then(work)
        .catch(onError)
        .finally(() => pendingWork.delete(done));
      pendingWork.add(done);
    },
    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await Promise.all(pendingWork);
        await jobs.idle(Math.max(1, deadline - Date.now()));
        if (pendingWork.size === 0) return;
      }
    },
    counts: (caller) => jobs.counts(caller, mailJob.name),
    async close() {
      // The queue itself is closed by its owner (services.ts), after the work here.
      await Promise.all(pendingWork);
    },
  };
}
