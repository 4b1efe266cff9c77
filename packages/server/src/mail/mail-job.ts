import { defineJob, doubling, jobType, type JobKind } from '../core/jobs.js';
import type { Mail, Mailer } from '../core/mailer.js';

/** A mail to deliver: a job of the queue (core/job-queue.ts) whose payload is the mail. */
export const mailJob = jobType<Mail>('mail');

/**
 * Delivers a queued mail through `transport` (the runtime settings' SMTP server or the outbox,
 * mail/create-mailer.ts). A failed delivery is tried again after 5 s, 10 s, 20 s ... up to an
 * hour between tries, 10 times in all, then kept as failed. A claim holds a minute. A delivered
 * mail's job is deleted: its reset and activation links are secrets.
 */
export function mailDelivery(
  transport: Mailer,
  onFailure: (err: unknown, mail: Mail, attempts: number) => void,
): JobKind {
  return defineJob({
    type: mailJob,
    maxAttempts: 10,
    retryDelayMs: doubling(5000),
    leaseMs: 60_000,
    keepDone: false,
    async run(mail) {
      await transport.send(mail);
      return undefined;
    },
    onFailure: (err, job) => onFailure(err, JSON.parse(job.payload) as Mail, job.attempts + 1),
  });
}
