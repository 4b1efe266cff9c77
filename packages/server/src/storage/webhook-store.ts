import type { Kysely } from 'kysely';
import { Cache, type CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import type { Webhook, WebhookStore } from '../core/webhooks.js';
import { writeAudit } from './audit-store.js';
import type { Database } from './schema.js';

/**
 * The webhooks (migration 2026-11-26-01). Their deliveries are jobs of the queue
 * (storage/job-store.ts, realtime/webhook-delivery.ts).
 */
export function createWebhookStore(db: Kysely<Database>, clock: Clock, feed: CacheFeed | null = null): WebhookStore {
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
        db.transaction().execute(async (trx) => {
          await trx
            .insertInto('webhooks')
            .values({ ...webhook, kinds: JSON.stringify(webhook.kinds) })
            .execute();
          // The audit log's line commits with the change (core/audit.ts; the secret is redacted).
          await writeAudit(trx, clock.now(), { action: 'webhook.add', target: webhook.id, after: webhook });
        }),
      );
    },

    async remove(id) {
      return changing(() =>
        db.transaction().execute(async (trx) => {
          const before = await trx.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
          const removed = await trx.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
          if (Number(removed.numDeletedRows) === 0) return false;
          await writeAudit(trx, clock.now(), { action: 'webhook.remove', target: id, before });
          return true;
        }),
      );
    },
  };
}
