import { sql, type Kysely, type Selectable } from 'kysely';
import { Cache, type CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import type { Delivery, DeliveryState, Webhook, WebhookStore } from '../core/webhooks.js';
import { needsRowLocks } from './database.js';
import type { Database } from './schema.js';

type DeliveryRow = Selectable<Database['webhook_deliveries']>;

const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  webhookId: r.webhook_id,
  kind: r.kind,
  payload: r.payload,
  state: r.state as DeliveryState,
  attempts: r.attempts,
  created: Number(r.created),
  nextAttempt: r.next_attempt === null ? null : Number(r.next_attempt),
  lastStatus: r.last_status,
  lastError: r.last_error,
  deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
});

/**
 * The webhooks and their deliveries (migration 2026-11-26-01). Deliveries are claimed as the mail
 * queue's mails are (storage/mail-queue-store.ts): `claimed_until` set by one process, other
 * processes on PostgreSQL skipping rows being claimed (`FOR UPDATE SKIP LOCKED`). Delivered and
 * given-up rows stay for the delivery log.
 */
export function createWebhookStore(db: Kysely<Database>, clock: Clock, feed: CacheFeed | null = null): WebhookStore {
  const rowLocks = needsRowLocks(db);
  // The list is one cache entry that follows the change feed like the permission entries
  // (storage/permission-store.ts): an addition or removal on any process is forgotten by every
  // other as its message arrives (issue 37, item 8: they used to read it again every 5 s).
  const TOPIC = 'webhooks';
  const ALL = 'all';
  const kept = new Cache<Webhook[]>({ clock, ttlMs: 60_000, maxSize: 1, feed, topic: TOPIC });
  const changed: Array<() => void> = [];
  const tell = () => {
    for (const listener of changed) listener();
  };
  feed?.subscribe((change) => {
    if (change === null || change.topic === TOPIC) tell();
  });
  const load = async (): Promise<Webhook[]> => {
    const rows = await db.selectFrom('webhooks').selectAll().orderBy('created').execute();
    return rows.map((r) => ({ ...r, created: Number(r.created), kinds: JSON.parse(r.kinds) as string[] }));
  };
  /** A change of the list, committed, then published and told here. */
  async function changing<T>(write: () => Promise<T>): Promise<T> {
    const done = await kept.around(() => kept.forget(ALL), write);
    await kept.publish(ALL);
    tell();
    return done;
  }
  return {
    list: () => Promise.resolve(kept.read(ALL, load)),

    onChange(listener) {
      changed.push(listener);
    },

    async add(webhook) {
      await changing(() =>
        db
          .insertInto('webhooks')
          .values({ ...webhook, kinds: JSON.stringify(webhook.kinds) })
          .execute(),
      );
    },

    async remove(id) {
      return changing(async () => {
        const removed = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
        await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
        return Number(removed.numDeletedRows) > 0;
      });
    },

    async enqueue(deliveries) {
      if (deliveries.length === 0) return;
      await db
        .insertInto('webhook_deliveries')
        .values(
          deliveries.map((d) => ({
            id: d.id,
            webhook_id: d.webhookId,
            kind: d.kind,
            payload: d.payload,
            state: 'pending',
            attempts: 0,
            created: d.created,
            next_attempt: d.created,
            claimed_until: null,
            last_status: null,
            last_error: null,
            delivered_at: null,
          })),
        )
        .execute();
    },

    async claimDue(now, leaseMs, limit) {
      const due = db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('state', '=', 'pending')
        .where('next_attempt', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .orderBy('next_attempt')
        .limit(limit);
      const rows = await db
        .updateTable('webhook_deliveries')
        .set({ claimed_until: now + leaseMs })
        .where('id', 'in', rowLocks ? due.forUpdate().skipLocked() : due)
        .returningAll()
        .execute();
      return rows.map(toDelivery).sort((a, b) => a.created - b.created);
    },

    async delivered(id, status, at) {
      await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          state: 'delivered',
          attempts: eb('attempts', '+', 1),
          next_attempt: null,
          claimed_until: null,
          last_status: status,
          last_error: null,
          delivered_at: at,
        }))
        .where('id', '=', id)
        .execute();
    },

    async failed(id, attempts, retryAt, status, error) {
      await db
        .updateTable('webhook_deliveries')
        .set({
          state: retryAt === null ? 'failed' : 'pending',
          attempts,
          next_attempt: retryAt,
          claimed_until: null,
          last_status: status,
          last_error: error.slice(0, 1000),
        })
        .where('id', '=', id)
        .execute();
    },

    async deliveries(webhookId, limit) {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .orderBy('created', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toDelivery);
    },

    async pending(now) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select(sql<number>`count(*)`.as('n'))
        .where('state', '=', 'pending')
        .where('next_attempt', '<=', now)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
