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
  send(mail: Mail): Promise<void>;
  close(): Promise<void>;
}

/**
 * What the services send mail through (mail/mail-queue.ts): `send` queues a mail; `later` runs
 * work that looks things up and queues mails after the answer has gone, so that the answer's
 * timing cannot tell what the work found (`resetPassword` must not tell which accounts exist).
 */
export interface QueuingMailer extends Mailer {
  later(work: () => Promise<void>): void;
}

/** A mail waiting in the queue, as a worker claimed it. */
export interface QueuedMail {
  id: string;
  mail: Mail;
  /** Failed deliveries so far. */
  attempts: number;
}

/** How many mails wait: due now, waiting for a retry, and given up after the last attempt. */
export interface MailQueueCounts {
  due: number;
  retrying: number;
  failed: number;
}

/**
 * Where queued mails are kept until delivered (storage/mail-queue-store.ts): a table, so that a
 * queued mail survives a restart and several processes share the work (mail/mail-queue.ts).
 */
export interface MailQueueStore {
  enqueue(id: string, mail: Mail, now: number): Promise<void>;
  /** Due mails nobody holds, held for `leaseMs` by the caller (a crashed holder's lease runs out). */
  claimDue(now: number, leaseMs: number, limit: number): Promise<QueuedMail[]>;
  delivered(id: string): Promise<void>;
  /** A failed delivery: tried again at `retryAt`, or never (null: kept as failed, for the operator). */
  failed(id: string, attempts: number, retryAt: number | null, error: string): Promise<void>;
  counts(now: number): Promise<MailQueueCounts>;
}
