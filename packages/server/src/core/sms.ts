import type { Cause } from './events.js';

/** A text message as Roost writes it: the number in E.164 and the words; `kind` says what it is for. */
export interface Sms {
  to: string;
  text: string;
  /** A tag for the logs (`sms-enrol`, `sms-signin`, `sms-step`). */
  kind: string;
}

/**
 * The port through which a text leaves Roost (sms/http-sms-sender.ts is the built-in one: an
 * HTTP gateway). `signal` aborts a try that takes longer than the queue's time limit.
 */
export interface SmsSender {
  send(to: string, text: string, signal?: AbortSignal): Promise<void>;
}

/**
 * Whether a text left at once (`sent`), or its first try failed and the job queue tries it again
 * (`retrying`), or failed with no try left (`failed`: `users.sms.sender.maxAttempts` is 1): what
 * the caller of an enrolment or a second step is told (docs/users.md, "Codes by SMS").
 */
export type SmsDelivery = 'sent' | 'retrying' | 'failed';

/** What the services send texts through (sms/sms-queue.ts, on the job queue of core/job-queue.ts). */
export interface SmsQueue {
  send(sms: Sms, cause?: Cause): Promise<SmsDelivery>;
}
