import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import { withinTime } from '../core/time-limit.js';
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
 * How often the listening connection is asked something (`heartbeat` below), and how long its
 * answer may take. The connection only receives, so a server that is gone without closing it
 * (its machine stopped, a network cut, a failover that moves an address: no reset ever arrives)
 * would leave the feed `live` and deaf for as long as TCP takes to give up, minutes: caches would
 * answer from memory while other processes' changes go unheard (issue 44, item 4;
 * docs/scaling.md, "Failover"). A look that fails or takes longer ends the connection, and the
 * feed reconnects as after any drop.
 */
const HEARTBEAT_MS = 2000;
const HEARTBEAT_TIMEOUT_MS = 3000;
/** A connection attempt that is not answered in this time failed (pg's client waits forever by default). */
const CONNECT_TIMEOUT_MS = 5000;

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
  let looking = false;

  const deliver = (change: { topic: string; key: string } | null) => {
    for (const listener of listeners) listener(change);
  };

  async function connect(): Promise<void> {
    const next = new (postgres().Client)({
      connectionString: databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    next.on('notification', (message) => {
      const [from, topic, key] = (message.payload ?? '').split('\n');
      if (from === origin || topic === undefined || key === undefined) return;
      deliver({ topic, key });
    });
    // Only while it is the feed's: a connection given up on may still end or fail later.
    next.on('error', (err) => client === next && down(err));
    next.on('end', () => client === next && down(new Error('change feed connection ended')));
    try {
      await next.connect();
      await next.query(`listen ${CHANNEL}`);
    } catch (error) {
      // Not kept: a connection that failed half-way (LISTEN refused by a standby, say) is closed.
      next.removeAllListeners('end');
      void next.end().catch(() => {});
      throw error;
    }
    client = next;
    live = true;
  }

  // One look at a time; a look of a connection that is no longer the feed's is ignored.
  const heartbeat = setInterval(() => {
    const current = client;
    if (!current || !live || looking) return;
    looking = true;
    // LISTEN again, which changes nothing when already listening: the connection keeps showing as
    // the feed's in pg_stat_activity (test/scale/session-coherence.test.ts finds it so).
    const late = () => new Error(`change feed connection did not answer in ${HEARTBEAT_TIMEOUT_MS} ms`);
    withinTime(current.query(`listen ${CHANNEL}`), HEARTBEAT_TIMEOUT_MS, late)
      .catch((err: Error) => {
        if (client === current) down(err);
      })
      .finally(() => {
        looking = false;
      });
  }, HEARTBEAT_MS);
  heartbeat.unref();

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
      clearInterval(heartbeat);
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      c?.removeAllListeners('end');
      await c?.end().catch(() => {});
    },
  };
}
