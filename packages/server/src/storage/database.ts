import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SQLite } from './sqlite-driver.js';
import {
  CompiledQuery,
  Kysely,
  sql,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DialectAdapter,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDialectConfig,
  type SqliteDatabase,
} from 'kysely';
import type pg from 'pg';
import { onFirstUse } from '../core/on-first-use.js';
import { openPostgresPool, postgresUrls, queryOnPool, throughPooler } from './pg-connections.js';
import { RowWrites } from './row-writes.js';
import { withStatementCache } from './sqlite-statements.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
}

// pg, loaded with PostgreSQL only (core/on-first-use.ts). PostgreSQL's bigint (int8) arrives as
// text by default; our times fit a double exactly.
export const postgres = onFirstUse<typeof pg>('pg', (loaded) => loaded.types.setTypeParser(20, (v) => Number(v)));

/**
 * Open the database: PostgreSQL when `databaseUrl` is given, else the SQLite file
 * `dataDir/roost.db` (WAL mode, so readers never wait for the single writer).
 */
export function openDatabase(options: {
  databaseUrl?: string | undefined;
  /** PostgreSQL without the pooler (storage/pg-connections.ts); its queries then name no statement. */
  databaseDirectUrl?: string | undefined;
  dataDir: string;
  durability?: 'full' | 'fast';
}): OpenedDatabase {
  const urls = postgresUrls(options);
  if (urls) {
    const { db, pool } = openPostgresPool(postgres(), urls);
    const named = !throughPooler(urls);
    pools.set(db, { pool, named, rowWrites: new RowWrites((query: pg.QueryConfig) => queryOnPool(pool, query)) });
    return { db, dialect: 'postgres' };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new SQLite(join(options.dataDir, 'roost.db'));
  sqlite.pragma('journal_mode = WAL');
  // In WAL mode NORMAL syncs only at checkpoints: a commit survives a crash of the process but
  // may be lost with power; FULL syncs the WAL at every commit (config.ts `durability`).
  sqlite.pragma(options.durability === 'fast' ? 'synchronous = NORMAL' : 'synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const dialect = new FairSqliteDialect({ database: withStatementCache(sqlite) });
  return { db: new Kysely<Database>({ dialect }), dialect: 'sqlite' };
}

/**
 * Run `work` on the database reached without the pooler (migrations: their DDL and lock wait
 * for no pooled connection), opened for it and closed after; `db` itself where one URL is both.
 */
export async function withDirectDatabase<T>(
  db: Kysely<Database>,
  options: { databaseUrl?: string | undefined; databaseDirectUrl?: string | undefined; dataDir: string },
  work: (direct: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const urls = postgresUrls(options);
  if (!urls || !throughPooler(urls)) return work(db);
  const direct = openDatabase({ databaseUrl: urls.direct, dataDir: options.dataDir });
  try {
    return await work(direct.db);
  } finally {
    await direct.db.destroy();
  }
}

/** Bytes the database takes on disk (SQLite: its main file's pages; PostgreSQL: the database), for the dashboard. */
export async function databaseBytes(db: Kysely<Database>): Promise<number> {
  const query =
    dialectOf(db) === 'postgres'
      ? sql<{ bytes: number | string }>`select pg_database_size(current_database()) as bytes`
      : sql<{
          bytes: number | string;
        }>`select page_count * page_size as bytes from pragma_page_count(), pragma_page_size()`;
  const row = (await query.execute(db)).rows[0];
  return Number(row?.bytes ?? 0);
}

/**
 * The dialect of a SQLite database opened here, whose connection the fast paths below use; null
 * for PostgreSQL and for a transaction (whose queries must go through it). The database's
 * adapter knows its dialect (`FairSqliteAdapter`): nothing is kept beside the database.
 */
function fairDialectOf(db: Kysely<Database>): FairSqliteDialect | null {
  if (db.isTransaction) return null;
  const adapter = db.getExecutor().adapter;
  return adapter instanceof FairSqliteAdapter ? adapter.dialect : null;
}

/**
 * Whether row locks (`FOR SHARE`, `FOR UPDATE`) are needed: on PostgreSQL transactions run side
 * by side; on SQLite a transaction holds the one connection, so transactions never interleave
 * (and SQLite has no such clauses).
 */
export function needsRowLocks(db: Kysely<Database>): boolean {
  return dialectOf(db) === 'postgres';
}

/** Which database `db` is (every database Roost opens comes from `openDatabase`). */
function dialectOf(db: Kysely<Database>): Dialect {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
}

/**
 * Run a write of one statement that cannot fail on its own (an UPDATE by key, say), on SQLite
 * together with the other such writes of the same event-loop turn, in one transaction: each
 * commit writes the WAL, and one commit for many writes costs a fraction of one per write.
 * On PostgreSQL a write that names its row and kind (`combine`) is combined with the others of
 * that row that come while one is under way (row-writes.ts). The promise resolves once the write is committed, so
 * an acknowledged write is stored. Otherwise (`db` a transaction, say) it is one query as usual.
 */
export function executeGrouped<R>(
  db: Kysely<Database>,
  query: CompiledQuery<R>,
  combine?: { row: string; kind: string },
): Promise<QueryResult<R>> {
  const dialect = fairDialectOf(db);
  if (dialect) return dialect.writeGrouped(db, query) as Promise<QueryResult<R>>;
  const rowWrites = db.isTransaction ? undefined : pools.get(db)?.rowWrites;
  if (rowWrites && combine !== undefined)
    return rowWrites
      .write(statementOf(db, query), combine.row, combine.kind)
      .then((result) => asQueryResult<R>(result));
  return executePrepared(db, query) ?? db.executeQuery(query);
}

/**
 * Run a compiled query, on SQLite at once when nothing holds the connection. Kysely's path
 * (connection provider, driver mutex, several awaits) costs more than SQLite's point select
 * itself; the hot paths (one item, one file entry) take this one. It is exact: while the
 * connection is free no transaction is open, and a statement runs to its end synchronously.
 * In a transaction (`db` is then the transaction), on PostgreSQL, or while the connection is
 * taken, the query goes through Kysely as usual.
 */
export async function executeNow<R>(db: Kysely<Database>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const direct = fairDialectOf(db)?.runIfIdle(query);
  if (direct) return direct as QueryResult<R>;
  return executePrepared(db, query) ?? db.executeQuery(query);
}

/**
 * The pool under each PostgreSQL database `openDatabase` opened, whether its statements are
 * named (not through a transaction pooler: storage/pg-connections.ts), and its writes of one row.
 */
const pools = new WeakMap<
  Kysely<Database>,
  { pool: pg.Pool; named: boolean; rowWrites: RowWrites<pg.QueryConfig, pg.QueryResult> }
>();
/**
 * A name per statement text: a named statement is parsed and planned once per connection. At most
 * NAMED_STATEMENTS texts get one, each kept by every pooled connection for its life: a
 * collection's pages have a text per shape of their filter, which callers choose
 * (collections/records-repo.ts), so later texts run unnamed, as Kysely runs every query.
 */
const statementNames = new Map<string, string>();
const NAMED_STATEMENTS = 1000;

/**
 * On PostgreSQL (outside a transaction), run a compiled query as a named statement: the
 * server parses and plans it once per pooled connection instead of on every call, as Kysely's
 * unnamed queries make it do (`namedStatement` bounds how many); through a transaction pooler
 * unnamed. With the retries of a statement run alone (storage/retry.ts). Null elsewhere.
 */
function executePrepared<R>(db: Kysely<Database>, query: CompiledQuery<R>): Promise<QueryResult<R>> | null {
  const pool = db.isTransaction ? undefined : pools.get(db)?.pool;
  if (!pool) return null;
  return queryOnPool(pool, statementOf(db, query)).then((result) => asQueryResult<R>(result));
}

/** The query as pg runs it: named where the database's connections keep named statements. */
function statementOf(db: Kysely<Database>, query: CompiledQuery): pg.QueryConfig {
  if (!pools.get(db)?.named) return { text: query.sql, values: query.parameters as unknown[] };
  return namedStatement(query);
}

/** A query as a named statement of pg, for its pooled connections (replica-reads.ts runs reads so too). */
export function namedStatement(query: CompiledQuery): pg.QueryConfig {
  let name = statementNames.get(query.sql);
  if (!name) {
    if (statementNames.size >= NAMED_STATEMENTS) return { text: query.sql, values: query.parameters as unknown[] };
    name = `roost_${statementNames.size + 1}`;
    statementNames.set(query.sql, name);
  }
  return { name, text: query.sql, values: query.parameters as unknown[] };
}

/** pg's result as Kysely gives it: affected rows for what is not a SELECT. */
function asQueryResult<R>(result: pg.QueryResult): QueryResult<R> {
  return result.command === 'SELECT'
    ? { rows: result.rows as R[] }
    : { rows: result.rows as R[], numAffectedRows: BigInt(result.rowCount ?? 0) };
}

/**
 * Kysely's SQLite driver guards its one connection with a mutex that wakes every waiter on
 * each release; all but one go back to sleep. Under 50 concurrent requests that made a point
 * select cost three times what it costs alone. Callers queue here instead, first come first
 * served, and each release wakes exactly one, so the driver's own mutex is never contended.
 */
class FairSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  #driver: FairSqliteDriver | null = null;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    this.#driver = new FairSqliteDriver(this.#config);
    return this.#driver;
  }

  override createAdapter(): DialectAdapter {
    return new FairSqliteAdapter(this);
  }

  /** The query's result, run now, or null when the connection is taken (or not yet opened). */
  runIfIdle(query: CompiledQuery): QueryResult<unknown> | null {
    if (!this.#driver || this.#driver.busy) return null;
    return this.#run(query);
  }

  #run(query: CompiledQuery): QueryResult<unknown> {
    // The statement cache of `withStatementCache` (the same one Kysely's driver uses).
    const statement = (this.#config.database as SqliteDatabase).prepare(query.sql);
    if (statement.reader) return { rows: statement.all(query.parameters) };
    const { changes, lastInsertRowid } = statement.run(query.parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  #group: Array<{ query: CompiledQuery; resolve: (r: QueryResult<unknown>) => void; reject: (e: unknown) => void }> =
    [];

  writeGrouped(db: Kysely<Database>, query: CompiledQuery): Promise<QueryResult<unknown>> {
    return new Promise((resolve, reject) => {
      if (this.#group.push({ query, resolve, reject }) === 1) setImmediate(() => this.#flush(db));
    });
  }

  #flush(db: Kysely<Database>): void {
    const group = this.#group;
    this.#group = [];
    if (!this.#driver || this.#driver.busy) {
      // A transaction holds the connection: each write waits its turn through Kysely.
      for (const w of group) db.executeQuery(w.query).then(w.resolve, w.reject);
      return;
    }
    const results: Array<QueryResult<unknown> | { error: unknown }> = [];
    try {
      this.#run(BEGIN);
      for (const w of group) {
        try {
          results.push(this.#run(w.query));
        } catch (error) {
          // SQLite undoes the failed statement only; the others stay in the transaction.
          results.push({ error });
        }
      }
      this.#run(COMMIT);
    } catch (error) {
      try {
        this.#run(ROLLBACK);
      } catch {
        // no transaction left to roll back
      }
      for (const w of group) w.reject(error);
      return;
    }
    group.forEach((w, i) => {
      const result = results[i]!;
      if ('error' in result) w.reject(result.error);
      else w.resolve(result);
    });
  }
}

/** SQLite's adapter, which tells `fairDialectOf` whose it is. */
class FairSqliteAdapter extends SqliteAdapter {
  constructor(readonly dialect: FairSqliteDialect) {
    super();
  }
}

// BEGIN IMMEDIATE takes the write lock at once, so the commit cannot meet a lock taken in between.
const BEGIN = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

class FairSqliteDriver extends SqliteDriver {
  #busy = false;

  /** Someone holds the connection (a query or a transaction is under way). */
  get busy(): boolean {
    return this.#busy;
  }
  readonly #waiting: Array<() => void> = [];

  override async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#busy) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#busy = true;
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    const next = this.#waiting.shift();
    // The connection passes straight to the next caller (`#busy` stays set), so none can overtake it.
    if (next) next();
    else this.#busy = false;
  }
}

/** The pool under a PostgreSQL database `openDatabase` opened, for reads beside it (replica-reads.ts); else null. */
export const poolOf = (db: Kysely<Database>): pg.Pool | null => pools.get(db)?.pool ?? null;
