import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import type { JobQueue } from '../core/job-queue.js';
import type { SmsQueue, SmsSender } from '../core/sms.js';
import { createHttpSmsSender } from './http-sms-sender.js';
import { smsDelivery } from './sms-job.js';
import { createSmsQueue } from './sms-queue.js';

/** What an embedding program may plug in (services.ts `RoostOverrides`). */
export interface SmsOverrides {
  /** Where texts leave, in place of the HTTP gateway of `users.sms.sender` (core/sms.ts `SmsSender`). */
  smsSender?: SmsSender;
}

/**
 * The texts' queue of services.ts: the sender (the override, or the HTTP gateway of
 * `users.sms.sender`), its kind of job registered on `jobs` before they start, and the queue
 * the user service sends through; null without a sender (codes by SMS answer `sms_unavailable`).
 */
export function openSms(
  config: Config,
  jobs: JobQueue,
  clock: Clock,
  log: FastifyBaseLogger,
  overrides: SmsOverrides,
): SmsQueue | null {
  const settings = config.users.sms.sender;
  const timeoutMs = (settings?.timeoutSeconds ?? 10) * 1000;
  const sender = overrides.smsSender ?? (settings ? createHttpSmsSender({ ...settings, timeoutMs }) : null);
  if (!sender) return null;
  const tries = { maxAttempts: settings?.maxAttempts ?? 5, timeoutMs };
  jobs.register(
    smsDelivery(sender, tries, (err, sms, attempts) =>
      log.warn({ err, kind: sms.kind, attempts }, 'a text could not be delivered; it is tried again later'),
    ),
  );
  return createSmsQueue(jobs, clock, sender, tries, (err) =>
    log.warn({ err }, 'a text could not be sent at once; the job queue tries it again'),
  );
}
