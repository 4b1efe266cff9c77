import type { Kysely } from 'kysely';
import { backendGrants } from '../core/grants.js';
import type { RequestRecord, RequestRecords } from '../core/request-records.js';
import type { Database } from './schema.js';

/** How long an added record waits at most before its batch is written. */
const FLUSH_MS = 500;
/** A batch's largest size: one INSERT of this many rows stays under SQLite's 32 766 parameters. */
const BATCH = 500;
/** What waits beyond this is dropped (and counted in the log): the database is far behind. */
const MAX_WAITING = 20_000;
/** How often rows older than the retention are removed. */
const PRUNE_MS = 60_000;

interface Options {
  retentionHours: number;
  now?: () => number;
  onError(err: unknown, what: string): void;
}

/**
 * The recent requests (`request_logs`, migration 2026-12-02-02; core/request-records.ts): added
 * to memory by the answer's hook, written by a timer in batches of one INSERT each, so that a
 * request never waits for this table; rows past `retentionHours` are removed with a batch at most
 * once a minute. A batch that fails is logged and dropped: the log line of each request is still
 * written (http/request-log.ts).
 */
export function createRequestLogStore(db: Kysely<Database>, options: Options): RequestRecords {
  const now = options.now ?? Date.now;
  let waiting: RequestRecord[] = [];
  let dropped = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let writing: Promise<void> = Promise.resolve();
  let prunedAt = 0;

  async function write(batch: RequestRecord[]): Promise<void> {
    for (let i = 0; i < batch.length; i += BATCH)
      await db
        .insertInto('request_logs')
        .values(
          batch.slice(i, i + BATCH).map((r) => ({
            at: r.at,
            request_id: r.requestId,
            method: r.method,
            url: r.url,
            route: r.route,
            status: r.status,
            ms: r.ms,
            user_id: r.userId,
            address: r.address,
            code: r.code,
          })),
        )
        .execute();
    if (now() - prunedAt >= PRUNE_MS) {
      prunedAt = now();
      const before = new Date(now() - options.retentionHours * 3_600_000).toISOString();
      await db.deleteFrom('request_logs').where('at', '<', before).execute();
    }
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = waiting;
    waiting = [];
    const lost = dropped;
    dropped = 0;
    if (lost > 0) options.onError(new Error(`${lost} request records dropped`), 'the request log store is behind');
    // One batch after the other: their order is the requests'.
    writing = writing
      .then(() => (batch.length ? write(batch) : undefined))
      .catch((err) => options.onError(err, 'request log store'));
    return writing;
  }

  return {
    add(record) {
      if (waiting.length >= MAX_WAITING) {
        dropped++;
        return;
      }
      waiting.push(record);
      if (waiting.length >= BATCH) void flush();
      else timer ??= setTimeout(() => void flush(), FLUSH_MS).unref();
    },
    async list(caller, filter) {
      backendGrants(caller).require('administer');
      let query = db.selectFrom('request_logs').selectAll();
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.statusClass !== undefined)
        query = query
          .where('status', '>=', filter.statusClass * 100)
          .where('status', '<', filter.statusClass * 100 + 100);
      if (filter.route !== undefined) query = query.where('route', '=', filter.route);
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
      if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
      if (filter.until !== undefined) query = query.where('at', '<=', filter.until);
      const rows = await query.orderBy('at', 'desc').limit(filter.limit).execute();
      return rows.map((r) => ({
        at: r.at,
        requestId: r.request_id,
        method: r.method,
        url: r.url,
        route: r.route,
        status: Number(r.status),
        ms: Number(r.ms),
        userId: r.user_id,
        address: r.address,
        code: r.code,
      }));
    },
    flush,
    async close() {
      await flush();
    },
  };
}
