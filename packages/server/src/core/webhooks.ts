/**
 * Webhooks (issue 21): an administrator's subscription of a URL to the events of one service,
 * and the deliveries made for it. The port here is implemented by storage/webhook-store.ts;
 * realtime/webhooks.ts makes deliveries from the event bus, jobs of the queue (core/job-queue.ts)
 * that realtime/webhook-delivery.ts sends.
 */

/** A configured webhook. `service` is `users`, or a data or file store's name; no kinds: all of them. */
export interface Webhook {
  id: string;
  url: string;
  /** The HMAC key deliveries are signed with (shown to administrators; never sent). */
  secret: string;
  service: string;
  /** Event kinds (`item.created`, ...) it wants; empty: every kind of its service. */
  kinds: string[];
  created: number;
}

type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One event on its way to one webhook, as the delivery log shows it. */
export interface Delivery {
  id: string;
  webhookId: string;
  kind: string;
  /** The JSON body sent (and signed). */
  payload: string;
  state: DeliveryState;
  attempts: number;
  created: number;
  /** When it is tried next (pending), or null. */
  nextAttempt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  /** The request whose change this delivery tells (sent as `x-request-id`), or null. */
  requestId: string | null;
}

/** Where webhooks are kept; their deliveries are jobs of the queue (realtime/webhook-delivery.ts). */
export interface WebhookStore {
  /** The webhooks, from memory while no process changed them (storage/webhook-store.ts). */
  list(): Promise<Webhook[]>;
  /**
   * Called when the list may have changed: an addition or removal here or on another process
   * (the change feed's message), or after the feed was down.
   */
  onChange(listener: () => void): void;
  add(webhook: Webhook): Promise<void>;
  remove(id: string): Promise<boolean>;
}
