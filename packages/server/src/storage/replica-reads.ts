import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Kysely,
  PostgresDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type pg from 'pg';
import type { EventBus } from '../core/events.js';
import { PRIMARY_ONLY, type Readers, type ReplicaState } from '../core/readers.js';
import { executeNow, namedStatement, poolOf, postgres, type Dialect } from './database.js';
import type { Database } from './schema.js';

/**
 * Read replicas (issue 44, item 3; docs/scaling.md, "Read replicas"). The stores' reads that may
 * be a little stale run on `reads`, a database whose every query picks its server as it
 * starts: a replica when the work under way is a reader's (`Readers.as`, entered per request by
 * http/reader-context.ts) and the replica has replayed that reader's last write, else the
 * primary. Everything else (sessions, tokens, API keys, permission entries, every write and the
 * reads a write decides by) keeps the primary's database: those modules are never handed `reads`.
 *
 * Read-your-writes by WAL position: after a reader's write commits (its event is told,
 * services.ts), the primary's WAL insert position is asked (`pg_current_wal_insert_lsn()`, one
 * query shared by the writes of the same moment) and kept as the reader's mark; a replica serves
 * that reader only once its `pg_last_wal_replay_lsn()` (looked at every `POLL_MS`) is past it.
 * The insert position, not `pg_current_wal_lsn()` (the written one): with
 * `synchronous_commit = off` a commit returns before its record is written, and the insert
 * position is past it either way.
 */

/** How often each replica's replay position and lag are read. */
const POLL_MS = 100;
/**
 * How long a reader's mark is kept. A replica further behind than `MAX_LAG_SECONDS` serves no
 * read, so once a mark is this old every replica in use has replayed the write it marks.
 */
const MARK_KEPT_MS = 30_000;
const MAX_LAG_SECONDS = 25;
/** A replica that cannot be reached is given up on quickly; the read goes to the primary. */
const CONNECT_TIMEOUT_MS = 1000;

export interface ReplicaReads {
  /** The database of the reads that may be a little stale (each store's read operations). */
  reads: Kysely<Database>;
  readers: Readers;
  close(): Promise<void>;
}

interface Replica {
  label: string;
  pool: pg.Pool;
  up: boolean;
  /** The replayed WAL position at the last look; null until one succeeded. */
  replayed: bigint | null;
  lagBytes: number | null;
  lagSeconds: number | null;
  reads: number;
  /** Whether it is a copy of our primary (its system identifier); false: never used. Asked once. */
  sameSystem: boolean | null;
  systemAsked: boolean;
}

/** A WAL position (`X/Y`, two hexadecimal halves) as a number that compares. */
function lsnValue(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** `host:port/database` of a URL, no credentials: the replica's label in /metrics and the log. */
function labelOf(url: string, index: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    // pg reads more than the WHATWG parser does; the URL itself would show its password.
    return `replica ${index + 1}`;
  }
}

/**
 * The cluster's system identifier (`pg_control_system()`): a replica made by `pg_basebackup`
 * has its primary's. Null when the role may not read it: the check is then skipped.
 */
async function systemOf(pool: pg.Pool): Promise<string | null> {
  try {
    const { rows } = await pool.query<{ id: string }>('select system_identifier::text as id from pg_control_system()');
    return rows[0]?.id ?? null;
  } catch {
    return null;
  }
}

/** A failure of the connection, not of the statement: the replica is given up on until it answers again. */
function connectionLost(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code !== 'string' || code.length !== 5 || code.startsWith('08') || code.startsWith('57P');
}

/**
 * Replicas of the primary under `primaryDb` (a PostgreSQL database from storage/database.ts),
 * looked at once before this resolves (a replica down at start is used once it answers); without
 * `urls` (or on SQLite) the primary's database itself, every read there.
 */
export async function openReplicaReads(
  primaryDb: Kysely<Database>,
  dialect: Dialect,
  urls: readonly string[],
  events: EventBus,
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void },
): Promise<ReplicaReads> {
  const found = dialect === 'postgres' ? poolOf(primaryDb) : null;
  if (!found || urls.length === 0) return { reads: primaryDb, readers: PRIMARY_ONLY, close: async () => {} };
  const primary: pg.Pool = found;
  const onProblem = (err: unknown, replica: string, what: string) =>
    err ? log.warn({ err, replica }, what) : log.info({ replica }, what);
  const replicas: Replica[] = urls.map((url, index) => {
    // Idle connections keep no process alive that is ending anyway (a start that failed after this).
    const pool = new (postgres().Pool)({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      allowExitOnIdle: true,
    });
    // As the primary's pool (storage/database.ts): an idle connection the server ends is dropped.
    pool.on('error', () => {});
    return {
      label: labelOf(url, index),
      pool,
      up: false,
      replayed: null,
      lagBytes: null,
      lagSeconds: null,
      reads: 0,
      sameSystem: null,
      systemAsked: false,
    };
  });
  const context = new AsyncLocalStorage<string>();
  let stopped = false;
  /** Each reader's last write: its WAL position (a promise while it is asked) and when. */
  const marks = new Map<string, { lsn: bigint | Promise<bigint>; at: number }>();
  let turn = 0;

  /** The replica for the read under way, or null for the primary. */
  async function choose(): Promise<Replica | null> {
    const reader = context.getStore();
    if (reader === undefined) return null;
    const mark = marks.get(reader);
    let needed = 0n;
    if (mark && Date.now() - mark.at < MARK_KEPT_MS) needed = await mark.lsn;
    const count = replicas.length;
    for (let i = 0; i < count; i++) {
      const replica = replicas[(turn + i) % count]!;
      if (
        replica.up &&
        replica.replayed !== null &&
        replica.replayed >= needed &&
        (replica.lagSeconds ?? Infinity) < MAX_LAG_SECONDS
      ) {
        turn = (turn + i + 1) % count;
        return replica;
      }
    }
    return null;
  }

  /**
   * A read, on the replica `choose` picks, else on the primary; a read that fails on a replica
   * runs again on the primary (a read is safe to repeat): a replica gone away, a read cancelled
   * by its replay's conflict, a table it has not replayed yet (a collection just made). Named,
   * as the primary's reads run (database.ts `executePrepared`): parsed and planned once per
   * connection.
   */
  async function read(query: CompiledQuery): Promise<QueryResult<unknown>> {
    const statement = namedStatement(query);
    const replica = await choose();
    if (replica) {
      try {
        const { rows } = await replica.pool.query(statement);
        replica.reads++;
        return { rows };
      } catch (err) {
        // Its ten connections busy past the timeout is load, not absence: the next look decides.
        const busy = String((err as Error | null)?.message).includes('timeout exceeded when trying to connect');
        if (!busy && connectionLost(err)) giveUp(replica, err, 'a read failed');
      }
    }
    // The primary's way (database.ts `executeNow`): unnamed through a transaction pooler, with the
    // retries of a statement run alone (storage/retry.ts).
    const { rows } = await executeNow(primaryDb, query);
    return { rows };
  }
  const reads = new Kysely<Database>({ dialect: new RoutedDialect(read) });

  function giveUp(replica: Replica, err: unknown, what: string): void {
    if (stopped) return;
    if (replica.up) onProblem(err, replica.label, `replica given up on (${what}); its reads go to the primary`);
    replica.up = false;
  }

  // The WAL position after the writes of this moment: one query for all of them, sent after
  // each of their commits (a write that joins it has committed before it is sent).
  let next: Promise<bigint> | null = null;
  function positionAfterCommits(): Promise<bigint> {
    if (next) return next;
    const asked = new Promise<bigint>((resolve) => {
      setImmediate(() => {
        next = null;
        primary
          .query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')
          .then((result) => resolve(lsnValue(result.rows[0]!.lsn)))
          // Unknown: the reader reads the primary until the mark is forgotten.
          .catch(() => resolve(BigInt(Number.MAX_SAFE_INTEGER) << 16n));
      });
    });
    next = asked;
    return asked;
  }

  /**
   * The primary's WAL position at each look of the last `MAX_LAG_SECONDS` and a second: a
   * replica's lag in seconds is the age of the first position it has not replayed. Its own
   * measure (`pg_last_xact_replay_timestamp()` while received WAL waits) misses a replica that
   * stopped receiving: it then has nothing waiting and reads as caught up.
   */
  const history: Array<{ at: number; lsn: bigint }> = [];
  const lagAgainstPrimary = (replayed: bigint, now: number): number => {
    const missing = history.find((seen) => seen.lsn > replayed);
    return missing ? (now - missing.at) / 1000 : 0;
  };

  /** One look at every replica: where its replay is, how far behind the primary. */
  async function look(): Promise<void> {
    const written = await primary
      .query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')
      .then((result) => (result.rows[0] ? lsnValue(result.rows[0].lsn) : null))
      .catch(() => null);
    const now = Date.now();
    if (written !== null) history.push({ at: now, lsn: written });
    while (history.length > 0 && now - history[0]!.at > (MAX_LAG_SECONDS + 1) * 1000) history.shift();
    await Promise.all(replicas.map((replica) => lookAt(replica, written, now)));
    // Marks every replica has replayed (one never seen may lack any), and old ones, are done with.
    const replayed = replicas.map((r) => r.replayed);
    const behind = replayed.includes(null)
      ? null
      : replayed.reduce<bigint | null>((least, r) => (least === null || (r !== null && r < least) ? r : least), null);
    for (const [reader, mark] of marks) {
      const passed = typeof mark.lsn === 'bigint' && behind !== null && mark.lsn <= behind;
      if (passed || now - mark.at >= MARK_KEPT_MS) marks.delete(reader);
    }
  }

  async function lookAt(replica: Replica, primaryAt: bigint | null, now: number): Promise<void> {
    try {
      const { rows } = await replica.pool.query<{ recovering: boolean; replayed: string | null; seconds: number }>(
        `select pg_is_in_recovery() as recovering, pg_last_wal_replay_lsn()::text as replayed,
          case when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
            else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()), 0) end::float8 as seconds`,
      );
      const row = rows[0];
      if (!row?.recovering || row.replayed === null) {
        // Promoted, or never a replica: what it holds may be another history than the primary's.
        giveUp(replica, new Error('not in recovery'), 'it is no replica');
        return;
      }
      if (!replica.systemAsked) {
        // Once: a role that may not read it would fail (and be logged by PostgreSQL) on every look.
        replica.systemAsked = true;
        const [ours, theirs] = await Promise.all([systemOf(primary), systemOf(replica.pool)]);
        if (ours !== null && theirs !== null) replica.sameSystem = ours === theirs;
      }
      if (replica.sameSystem === false) {
        giveUp(replica, new Error('another system identifier'), 'it is a copy of another database');
        return;
      }
      replica.replayed = lsnValue(row.replayed);
      replica.lagSeconds = Math.max(row.seconds, lagAgainstPrimary(replica.replayed, now));
      replica.lagBytes = primaryAt === null ? null : Math.max(0, Number(primaryAt - replica.replayed));
      if (!replica.up) onProblem(null, replica.label, 'replica in use');
      replica.up = true;
    } catch (err) {
      giveUp(replica, err, 'it did not answer');
      replica.lagBytes = null;
      replica.lagSeconds = null;
    }
  }

  await look();
  // A reader's write is known by its event, told after the commit in the writer's own work
  // (core/events.ts hands it to this process's listeners at once), so the mark is its request's.
  const unlisten = events.onAny((event) => {
    if (event.local) wrote();
  });

  /** Notes that the reader of the work under way wrote (its write has committed). */
  function wrote(): void {
    const reader = context.getStore();
    if (reader === undefined) return;
    const lsn = positionAfterCommits();
    const mark = { lsn: lsn as bigint | Promise<bigint>, at: Date.now() };
    marks.set(reader, mark);
    // Once known, a plain number: the reads after it take no await on a settled promise.
    void lsn.then((value) => {
      if (marks.get(reader) === mark) mark.lsn = value;
    });
  }
  let timer: NodeJS.Timeout | null = null;
  const again = () => {
    if (stopped) return;
    timer = setTimeout(() => look().finally(again), POLL_MS);
    timer.unref();
  };
  again();

  return {
    reads,
    readers: {
      replicated: true,
      as: (reader, work) => context.run(reader, work),
      replicas: (): ReplicaState[] =>
        replicas.map((r) => ({
          replica: r.label,
          up: r.up,
          lagBytes: r.up ? r.lagBytes : null,
          lagSeconds: r.up ? r.lagSeconds : null,
          reads: r.reads,
        })),
    },
    async close() {
      stopped = true;
      unlisten();
      if (timer) clearTimeout(timer);
      await reads.destroy();
      await Promise.all(replicas.map((r) => r.pool.end().catch(() => {})));
    },
  };
}

/**
 * PostgreSQL's dialect whose every query is handed to `read`, which picks the server as the
 * query starts: no connection is held between queries, so there is none to choose ahead. The
 * replicas' database only reads: a transaction on it is a mistake, refused.
 */
class RoutedDialect extends PostgresDialect {
  readonly #driver: Driver;

  constructor(read: (query: CompiledQuery) => Promise<QueryResult<unknown>>) {
    // The pool is never asked for: `createDriver` makes the driver.
    super({ pool: async () => Promise.reject(new Error('no pool')) });
    const connection: DatabaseConnection = {
      executeQuery: read as DatabaseConnection['executeQuery'],
      streamQuery: () => {
        throw new Error('the replicas database streams no query');
      },
    };
    const refused = async () => {
      throw new Error('the replicas database runs no transaction: writes and their reads go to the primary');
    };
    this.#driver = {
      init: async () => {},
      acquireConnection: async () => connection,
      beginTransaction: refused,
      commitTransaction: refused,
      rollbackTransaction: refused,
      releaseConnection: async () => {},
      destroy: async () => {},
    };
  }

  override createDriver(): Driver {
    return this.#driver;
  }
}
