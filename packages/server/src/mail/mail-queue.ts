import { randomInt } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import type { Mailer, MailQueueCounts, MailQueueStore, QueuedMail, QueuingMailer } from '../core/mailer.js';
import { wakeLoop } from '../core/wake-loop.js';

/**
 * Mail off the request path (docs/operations.md, "Mail"): `send` only stores the mail in the
 * queue (storage/mail-queue-store.ts) and wakes the worker, so no answer waits for SMTP and an
 * answer's timing says nothing about whether a mail went out (`resetPassword` must not tell
 * which accounts exist). The worker delivers through `transport` (the runtime settings' SMTP
 * server or the outbox, mail/create-mailer.ts); a failed delivery is tried again after
 * 5 s, 10 s, 20 s ... up to an hour between tries, `MAX_ATTEMPTS` times in all, then kept as
 * failed. Queued mails survive a restart: a process's worker picks up whatever is due,
 * including mails another process claimed and did not finish within `LEASE_MS`.
 */
export interface MailQueue extends QueuingMailer {
  /** Start delivering (serve does; the CLI only queues). */
  start(): void;
  /**
   * Resolves once no `later` work is pending, nothing is due and
   * no delivery is under way in this process (tests, shutdown).
   */
  idle(timeoutMs?: number): Promise<void>;
  counts(): Promise<MailQueueCounts>;
}

const MAX_ATTEMPTS = 10;
const LEASE_MS = 60_000;
const POLL_MS = 1000;
const BATCH = 20;
const LATER_SPREAD_MS = 50;

/** The wait before try `attempts + 1`, after `attempts` failures. */
function retryDelayMs(attempts: number): number {
  return Math.min(3600_000, 5000 * 2 ** Math.min(attempts - 1, 20));
}

export function createMailQueue(
  store: MailQueueStore,
  transport: Mailer,
  clock: Clock,
  onError: (err: unknown, mail: QueuedMail | null) => void = () => {},
): MailQueue {
  const pendingWork = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  async function deliver(item: QueuedMail): Promise<void> {
    try {
      await transport.send(item.mail);
      await store.delivered(item.id);
    } catch (err) {
      const attempts = item.attempts + 1;
      onError(err, item);
      await store.failed(
        item.id,
        attempts,
        attempts >= MAX_ATTEMPTS ? null : clock.now() + retryDelayMs(attempts),
        err instanceof Error ? err.message : String(err),
      );
    }
  }

  /** Delivers every due mail, a batch at a time. */
  async function drain(): Promise<void> {
    for (;;) {
      const batch = await store.claimDue(clock.now(), LEASE_MS, BATCH);
      if (batch.length === 0) return;
      await Promise.all(batch.map(deliver));
    }
  }
  // The database is unreachable when a pass fails: the next poll tries again.
  const worker = wakeLoop(
    drain,
    () => {},
    () => closed,
  );
  const wake = () => worker.wake();

  return {
    async send(mail) {
      await store.enqueue(newId(), mail, clock.now());
      if (timer) void wake();
    },
    later(work) {
      // After the answer has gone out: a timer, not setImmediate, so the event loop first polls
      // its sockets (with SQLite the work blocks the loop for its writes). The moment is drawn
      // from LATER_SPREAD_MS so that a request that follows a `resetPassword` cannot tell by its
      // own wait whether that one found an account (docs/security.md, "Mail").
      const done: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, randomInt(1, LATER_SPREAD_MS)))
        .then(work)
        .catch((err: unknown) => onError(err, null))
        .finally(() => pendingWork.delete(done));
      pendingWork.add(done);
    },
    start() {
      if (timer || closed) return;
      timer = setInterval(() => void wake(), POLL_MS).unref();
      void wake();
    },
    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await Promise.all(pendingWork);
        await wake();
        if ((await store.counts(clock.now())).due === 0 && !worker.busy && pendingWork.size === 0) return;
        if (Date.now() > deadline) throw new Error('mail queue: mails still due after the timeout');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    counts: () => store.counts(clock.now()),
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      await Promise.all(pendingWork);
      await worker.settled();
      await transport.close();
    },
  };
}
