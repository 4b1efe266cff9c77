import { createHmac } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { defineJob, doubling, JobFailure, jobType, payloadOf, type Job, type JobKind } from '../core/jobs.js';
import type { Delivery, WebhookStore } from '../core/webhooks.js';

/** One event on its way to one webhook: a job of the queue (core/job-queue.ts). */
export interface WebhookDelivery {
  webhookId: string;
  /** The event's kind, for `x-roost-event`. */
  kind: string;
  /** The JSON body sent (and signed). */
  body: string;
}

export const webhookJob = jobType<WebhookDelivery>('webhook');

/** The limits and timings of deliveries (config `webhooks`, docs/configuration.md). */
export interface WebhookSettings {
  timeoutMs: number;
  maxAttempts: number;
  /** The wait before the second try; each further wait doubles, up to an hour. */
  retryMs: number;
}

/**
 * How long a claimed delivery is held beyond its try's own limit (`timeoutMs`): the time to
 * record the outcome. A process killed mid-try holds its deliveries that long, then another
 * process tries them (issue 46, part 3: it was a fixed minute; docs/realtime.md gives the bound).
 */
const LEASE_MARGIN_MS = 10_000;

/**
 * The signature of a delivery (docs/realtime.md, "Webhooks"): HMAC-SHA256 with the webhook's
 * secret over `<timestamp>.<body>`, hex, as `sha256=<hex>` (the scheme of Stripe and GitHub; the
 * timestamp in the signed text lets a receiver refuse old replays).
 */
function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * The delivery worker of the webhooks (realtime/webhooks.ts makes the deliveries from the event
 * bus): POST of the event's JSON, signed; anything but a 2xx within `timeoutMs` (a redirect too)
 * is a failure, tried again after `retryMs`, doubling, up to `maxAttempts` tries, then kept as
 * failed. The job's id is `x-roost-delivery`, the same on every try; `x-request-id` is the id of
 * the request that made the change, when a request did. Done jobs stay: they are
 * the webhook's delivery log (`deliveryOf`).
 */
export function webhookDelivery(store: WebhookStore, settings: WebhookSettings, clock: Clock): JobKind {
  return defineJob({
    type: webhookJob,
    maxAttempts: settings.maxAttempts,
    retryDelayMs: doubling(settings.retryMs),
    leaseMs: settings.timeoutMs + LEASE_MARGIN_MS,
    keepDone: true,
    async run(delivery, job) {
      // The store's list is kept in memory and follows every change (storage/webhook-store.ts).
      const hook = (await store.list()).find((h) => h.id === delivery.webhookId);
      if (!hook) throw new JobFailure('The webhook was removed.', null, true);
      const timestamp = Math.floor(clock.now() / 1000);
      const response = await fetch(hook.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(settings.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Roost-Webhooks',
          'x-roost-event': delivery.kind,
          'x-roost-delivery': job.id,
          'x-roost-timestamp': String(timestamp),
          'x-roost-signature': signature(hook.secret, timestamp, delivery.body),
          // The request whose change this is (core/jobs.ts `requestId`), as its answer had it.
          ...(job.requestId === null ? {} : { 'x-request-id': job.requestId }),
        },
        body: delivery.body,
      });
      const status = response.status;
      const text = (await response.text()).slice(0, 300);
      if (status >= 200 && status < 300) return { status };
      throw new JobFailure(`HTTP ${status}${text ? `: ${text}` : ''}`, status);
    },
  });
}

/** A webhook job as the delivery log shows it (core/webhooks.ts `Delivery`). */
export function deliveryOf(job: Job): Delivery {
  const delivery = payloadOf(webhookJob, job);
  return {
    id: job.id,
    webhookId: delivery.webhookId,
    kind: delivery.kind,
    payload: delivery.body,
    // A delivery is never skipped (its kind is not exclusive, core/jobs.ts): as failed, were it so.
    state: job.state === 'done' ? 'delivered' : job.state === 'skipped' ? 'failed' : job.state,
    attempts: job.attempts,
    created: job.created,
    nextAttempt: job.state === 'pending' ? job.runAt : null,
    lastStatus: job.lastStatus,
    lastError: job.lastError,
    deliveredAt: job.state === 'done' ? job.finishedAt : null,
    requestId: job.requestId,
  };
}
