import { defineJob, doubling, jobType, type JobKind } from '../core/jobs.js';
import type { Sms, SmsSender } from '../core/sms.js';

/** A text to deliver: a job of the queue (core/job-queue.ts) whose payload is the text. */
export const smsJob = jobType<Sms>('sms');

/** The wait before the queue's first try, after the request's own (then doubling: doubling of core/jobs.ts). */
export const SMS_FIRST_RETRY_MS = 2000;

/**
 * Delivers a queued text through `sender` after its first try failed (sms/sms-queue.ts): tried
 * again after 2 s, 4 s, 8 s … up to `maxAttempts` tries in all (the first, in the request,
 * included), then kept as failed. A delivered text's job is deleted: it holds a code.
 */
export function smsDelivery(
  sender: SmsSender,
  settings: { maxAttempts: number; timeoutMs: number },
  onFailure: (err: unknown, sms: Sms, attempts: number) => void,
): JobKind {
  return defineJob({
    type: smsJob,
    maxAttempts: Math.max(1, settings.maxAttempts - 1),
    retryDelayMs: doubling(SMS_FIRST_RETRY_MS * 2),
    timeoutMs: settings.timeoutMs,
    leaseMs: settings.timeoutMs + 30_000,
    keepDone: false,
    async run(sms, _job, signal) {
      await sender.send(sms.to, sms.text, signal);
      return undefined;
    },
    onFailure: (err, job) => onFailure(err, JSON.parse(job.payload) as Sms, job.attempts + 1),
  });
}
