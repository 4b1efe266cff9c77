import { randomUUID } from 'node:crypto';
import { onFirstUse } from '../core/on-first-use.js';
import type { CacheFeed } from '../core/cache.js';
import type { ChangeFeed } from './change-feed.js';

/** ioredis, loaded with `realtime.redisUrl` only (core/on-first-use.ts). */
const ioredis = onFirstUse<typeof import('ioredis')>('ioredis');

const CHANNEL = 'roost:events';
/** The message that tells receivers to forget everything: a message of this process was lost. */
const LOST = '';

/**
 * The way between processes over Redis pub/sub (config `realtime.redisUrl`): the events of the
 * bus (core/events.ts) and, on the same connection and channel, what caches forget
 * (`withInvalidations` below). Redis delivers the messages of one publishing connection in the
 * order they were published, so a receiver always forgets what a change made stale before it
 * hears of an event that change caused (issue 46: with events over Redis and invalidations over
 * NOTIFY, an event overtook the invalidation and a stream re-read its subscriber's old groups).
 *
 * Pub/sub keeps nothing for a subscriber that is away: once the subscribing connection is back
 * after a drop, listeners get `null` (forget everything; streams are told to `reload`,
 * realtime/hub.ts). A publish that fails (Redis away) is not queued, and the next message of
 * this process goes after a `null` for the receivers: an event never arrives behind a lost
 * invalidation without the receivers first forgetting everything.
 */
export async function openRedisFeed(url: string, onError: (err: Error) => void): Promise<ChangeFeed> {
  const origin = randomUUID().slice(0, 8);
  const listeners: Array<(change: { topic: string; key: string } | null) => void> = [];
  const deliver = (change: { topic: string; key: string } | null) => {
    for (const listener of listeners) listener(change);
  };
  // Publishing fails at once while Redis is away (no queue of writes waiting for it).
  const { Redis } = ioredis();
  const publisher = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
  const subscriber = new Redis(url, { connectTimeout: 2000 });
  let down = false;
  let live = false;
  let lost = false;
  for (const connection of [publisher, subscriber])
    connection.on('error', (err: Error) => {
      if (!down) onError(err);
      down = true;
    });
  subscriber.on('message', (_channel: string, message: string) => {
    const [from, topic, ...rest] = message.split('\n');
    if (from === origin || topic === undefined) return;
    if (topic === LOST) deliver(null);
    else if (rest.length > 0) deliver({ topic, key: rest.join('\n') });
  });
  // ioredis subscribes again after a reconnection; what was published meanwhile is lost.
  let ready = false;
  subscriber.on('ready', () => {
    live = true;
    if (ready) deliver(null);
    ready = true;
    down = false;
  });
  subscriber.on('close', () => {
    live = false;
  });
  // Not awaited: a Redis that is away at start must not keep Roost from starting (it is logged,
  // and ioredis subscribes once it connects).
  subscriber.subscribe(CHANNEL).catch((err: Error) => onError(err));
  const send = (text: string) => publisher.publish(CHANNEL, `${origin}\n${text}`);
  return {
    get live() {
      return live;
    },
    async publish(topic, key) {
      // Both commands are written at once, in order, on the one publishing connection.
      const marked = lost ? send(`${LOST}\n`) : null;
      lost = false;
      await Promise.all([marked, send(`${topic}\n${key}`)]).then(
        () => undefined,
        (err: Error) => {
          lost = true;
          onError(err);
        },
      );
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    async close() {
      live = false;
      await Promise.all([publisher, subscriber].map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

/**
 * The feed the caches follow when Redis carries the events: every invalidation goes with the
 * events (`events`: the bus's feed, core/events.ts, in one message with the events of its turn,
 * in order) and on PostgreSQL's NOTIFY as well. The second copy is a harmless repeat (a forget
 * of what is already forgotten) and keeps the change feed's guarantee where Redis dropped a
 * message: an invalidation whose Redis publish failed still reaches the others within NOTIFY's
 * delivery. Entries answer from memory while the NOTIFY feed is live, as without Redis
 * (storage/change-feed.ts): it carries every invalidation; a gap on either forgets everything.
 */
export function withInvalidations(notify: CacheFeed, events: CacheFeed): CacheFeed {
  return {
    get live() {
      return notify.live;
    },
    async publish(topic, key) {
      await Promise.all([events.publish(topic, key), notify.publish(topic, key)]);
    },
    subscribe(listener) {
      notify.subscribe(listener);
      events.subscribe(listener);
    },
  };
}
