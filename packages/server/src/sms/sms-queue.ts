import type { Clock } from '../core/clock.js';
import type { JobQueue } from '../core/job-queue.js';
import { JobFailure } from '../core/jobs.js';
import type { SmsQueue, SmsSender } from '../core/sms.js';
import { SMS_FIRST_RETRY_MS, smsJob } from './sms-job.js';

/**
 * Texts with their first try in the request, the rest on the job queue (docs/decisions.md, "SMS
 * codes"): a person waits for the code, so the caller of an enrolment or a second step is told
 * at once whether it left (`sent`) or is tried again (`retrying`: the gateway failed or timed
 * out; sms/sms-job.ts tries again with backoff, as mail/mail-job.ts does for mails), or that it
 * failed for good (`failed`: no try left, or the gateway refused it). A sign-in
 * request by number runs this after its answer (the mail queue's `later`), so its timing tells
 * nothing about the number.
 */
export function createSmsQueue(
  jobs: JobQueue,
  clock: Clock,
  sender: SmsSender,
  tries: { timeoutMs: number; maxAttempts: number },
  onFirstFailure: (err: unknown) => void,
): SmsQueue {
  return {
    async send(sms, cause) {
      try {
        await sender.send(sms.to, sms.text, AbortSignal.timeout(tries.timeoutMs));
        return 'sent';
      } catch (err) {
        onFirstFailure(err);
        // No try left, or the gateway refused the text itself (a 4xx: core/jobs.ts `final`).
        if (tries.maxAttempts <= 1 || (err instanceof JobFailure && err.final)) return 'failed';
        await jobs.add(smsJob, sms, { requestId: cause?.requestId, runAt: clock.now() + SMS_FIRST_RETRY_MS });
        return 'retrying';
      }
    },
  };
}
