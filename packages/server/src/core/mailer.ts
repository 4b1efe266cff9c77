import type { Cause } from './events.js';

/** A mail as Roost writes it: always a plain text and an HTML part. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A tag saying what the mail is for (`activation`, `reset`, ...), for the outbox and logs. */
  kind: string;
}

/** The port through which the domain sends mail; mail/ holds the implementations. */
export interface Mailer {
  /**
   * `cause`, the caller whose request the mail answers: the mail queue's job keeps its request id
   * (core/jobs.ts `requestId`), which the job's run line carries (docs/operations.md, "Logs").
   */
  send(mail: Mail, cause?: Cause): Promise<void>;
  close(): Promise<void>;
}

/**
 * What the services send mail through (mail/mail-queue.ts, on the job queue of
 * core/job-queue.ts): `send` queues a mail; `later` runs
 * work that looks things up and queues mails after the answer has gone, so that the answer's
 * timing cannot tell what the work found (`resetPassword` must not tell which accounts exist).
 */
export interface QueuingMailer extends Mailer {
  later(work: () => Promise<void>): void;
}

/** How many mails wait: due now, waiting for a retry, and given up after the last attempt. */
export type { JobCounts as MailQueueCounts } from './jobs.js';
