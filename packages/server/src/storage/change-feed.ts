import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import { postgres } from './database.js';
import type { Database } from './schema.js';

/**
 * What one server process tells the others on the same database: which of the things they
 * keep in memory (sessions, permission entries) changed, so they drop them at once instead
 * of after their cache time. On PostgreSQL it is LISTEN/NOTIFY; on SQLite, where one process
 * owns the database, there is nothing to tell.
 */
export interface ChangeFeed {
  /**
   * Tell the other processes that `key` of `topic` changed. Call it after the change is
   * committed: a process that reloads on the message must find the new state. Never rejects.
   */
  publish(topic: string, key: string): Promise<void>;
  /** Called for every change another process published, and with `null` after the feed was down: forget everything. */
  subscribe(listener: (change: { topic: string; key: string } | null) => void): void;
  /** False while messages may be missed (the listening connection is down): do not answer from memory then. */
  readonly live: boolean;
  close(): Promise<void>;
}

const CHANNEL = 'roost_changes';

/**
 * A dedicated connection LISTENs (a pooled one cannot: it changes hands between queries).
 * Notifications are delivered after the notifying transaction commits, in commit order. When
 * the connection drops, the feed is not `live` until it is back; then subscribers forget
 * everything, since what was published meanwhile is lost.
 */
export async function openPostgresChangeFeed(
  databaseUrl: string,
  db: Kysely<Database>,
  onError: (err: Error) => void,
): Promise<ChangeFeed> {
  const origin = randomUUID().slice(0, 8);
  const listeners: Array<(change: { topic: string; key: string } | null) => void> = [];
  let client: pg.Client | null = null;
  let live = false;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const deliver = (change: { topic: string; key: string } | null) => {
    for (const listener of listeners) listener(change);
  };

  async function connect(): Promise<void> {
    const next = new (postgres().Client)({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      const [from, topic, key] = (message.payload ?? '').split('\n');
      if (from === origin || topic === undefined || key === undefined) return;
      deliver({ topic, key });
    });
    next.on('error', (err) => down(err));
    next.on('end', () => down(new Error('change feed connection ended')));
    await next.connect();
    await next.query(`listen ${CHANNEL}`);
    client = next;
    live = true;
  }

  function down(err: Error): void {
    if (closed || !live) return;
    live = false;
    onError(err);
    client?.removeAllListeners('end');
    void client?.end().catch(() => {});
    client = null;
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    retry = setTimeout(() => {
      retry = null;
      connect().then(
        () => deliver(null),
        () => {
          if (!closed) scheduleReconnect();
        },
      );
    }, 1000);
    retry.unref();
  }

  await connect();

  return {
    get live() {
      return live;
    },
    async publish(topic, key) {
      // The change itself is committed: a failure to tell is logged, not the caller's failure.
      // (The database is then unreachable for the others' feeds too, and they stop caching.)
      await sql`select pg_notify(${CHANNEL}, ${`${origin}\n${topic}\n${key}`})`
        .execute(db)
        .catch((err: Error) => onError(err));
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    async close() {
      closed = true;
      live = false;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      c?.removeAllListeners('end');
      await c?.end().catch(() => {});
    },
  };
}
