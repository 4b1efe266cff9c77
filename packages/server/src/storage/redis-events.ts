import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { EventTransport } from '../core/events.js';

const CHANNEL = 'roost:events';

/**
 * The event bus's way between processes over Redis pub/sub (config `realtime.redisUrl`), beside
 * PostgreSQL's change feed, which keeps carrying what caches forget (storage/change-feed.ts).
 * Pub/sub keeps nothing for a subscriber that is away: once the subscribing connection is back
 * after a drop, listeners get `null` (a gap: streams are told to `reload`, realtime/hub.ts).
 */
export async function openRedisEventTransport(
  url: string,
  onError: (err: Error) => void,
): Promise<EventTransport & { close(): Promise<void> }> {
  const origin = randomUUID().slice(0, 8);
  const listeners: Array<(change: { topic: string; key: string } | null) => void> = [];
  const deliver = (change: { topic: string; key: string } | null) => {
    for (const listener of listeners) listener(change);
  };
  // Publishing fails at once while Redis is away (no queue of writes waiting for it).
  const publisher = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
  const subscriber = new Redis(url, { connectTimeout: 2000 });
  let down = false;
  for (const connection of [publisher, subscriber])
    connection.on('error', (err: Error) => {
      if (!down) onError(err);
      down = true;
    });
  subscriber.on('message', (_channel: string, message: string) => {
    const [from, topic, ...rest] = message.split('\n');
    if (from === origin || topic === undefined || rest.length === 0) return;
    deliver({ topic, key: rest.join('\n') });
  });
  // ioredis subscribes again after a reconnection; what was published meanwhile is lost.
  let ready = false;
  subscriber.on('ready', () => {
    if (ready) deliver(null);
    ready = true;
    down = false;
  });
  // Not awaited: a Redis that is away at start must not keep Roost from starting (it is logged,
  // and ioredis subscribes once it connects).
  subscriber.subscribe(CHANNEL).catch((err: Error) => onError(err));
  return {
    async publish(topic, key) {
      await publisher.publish(CHANNEL, `${origin}\n${topic}\n${key}`).then(
        () => undefined,
        (err: Error) => onError(err),
      );
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    async close() {
      await Promise.all([publisher, subscriber].map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
