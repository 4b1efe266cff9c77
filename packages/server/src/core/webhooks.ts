/**
 * Webhooks (issue 21): an administrator's subscription of a URL to the events of one service,
 * and the deliveries made for it. The port here is implemented by storage/webhook-store.ts;
 * realtime/webhooks.ts makes deliveries from the event bus and sends them.
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

export type DeliveryState = 'pending' | 'delivered' | 'failed';

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
}

/** Where webhooks and their deliveries are kept: a table each, so deliveries survive a restart. */
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
  enqueue(
    deliveries: ReadonlyArray<Pick<Delivery, 'id' | 'webhookId' | 'kind' | 'payload' | 'created'>>,
  ): Promise<void>;
  /** Due deliveries nobody holds, held for `leaseMs` (a crashed holder's lease runs out). */
  claimDue(now: number, leaseMs: number, limit: number): Promise<Delivery[]>;
  delivered(id: string, status: number, at: number): Promise<void>;
  /** A failed try: tried again at `retryAt`, or given up (null). */
  failed(id: string, attempts: number, retryAt: number | null, status: number | null, error: string): Promise<void>;
  /** The newest deliveries of a webhook, newest first. */
  deliveries(webhookId: string, limit: number): Promise<Delivery[]>;
  /** Deliveries not yet delivered nor given up (tests and shutdown). */
  pending(now: number): Promise<number>;
}
