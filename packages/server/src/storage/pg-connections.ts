import {
  Kysely,
  PostgresDialect,
  type DatabaseConnection,
  type Driver,
  type PostgresPool,
  type PostgresPoolClient,
  type QueryResult,
  type TransactionBuilder,
  type TransactionSettings,
} from 'kysely';
import type { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';
import { clusterFailureOf, databaseUnavailable, endsConnection, statementRetries, withRetries } from './retry.js';

/**
 * Where Roost reaches PostgreSQL (issue 44, item 1; docs/scaling.md, "Behind PgBouncer"): `pooled`
 * for every query, `direct` for what needs a connection of its own for longer than a
 * transaction (LISTEN, migrations). Without `databaseDirectUrl` one URL is both.
 */
export interface PostgresUrls {
  pooled: string;
  direct: string;
}

export function postgresUrls(config: {
  databaseUrl?: string | undefined;
  databaseDirectUrl?: string | undefined;
}): PostgresUrls | null {
  if (!config.databaseUrl) return null;
  return { pooled: config.databaseUrl, direct: config.databaseDirectUrl ?? config.databaseUrl };
}

/**
 * Whether queries go through a transaction pooler, which hands each transaction to any server
 * connection: then no statement may be named (a named statement lives on one server
 * connection; PgBouncer before 1.21 knows nothing of them), and nothing may be left on a
 * connection between transactions.
 */
export function throughPooler(urls: PostgresUrls): boolean {
  return urls.pooled !== urls.direct;
}

/** The pool of the pooled URL, and Kysely over it with the retries of storage/retry.ts. */
export function openPostgresPool(driver: typeof pg, urls: PostgresUrls): { db: Kysely<Database>; pool: pg.Pool } {
  const pool = new driver.Pool({ connectionString: urls.pooled, max: 10 });
  // An idle connection that the server ends (a restart, a failover, an administrator) emits
  // `error` on the pool; unhandled, that would end the process. The pool drops the connection
  // and the next query opens a new one; `/ready` reports the database while it is away.
  pool.on('error', () => {});
  const db = new RetryingKysely({ dialect: new ClusterDialect({ pool: discardingPool(pool) }) });
  return { db, pool };
}

/**
 * Run a statement on a connection of the pool, outside a transaction, with the retries of a
 * statement run alone (storage/retry.ts); a connection that met a failure which ends it is
 * dropped from the pool, not handed to the next caller.
 */
export function queryOnPool(pool: pg.Pool, query: pg.QueryConfig): Promise<pg.QueryResult> {
  return withRetries(async () => {
    const client = await pool.connect();
    const watch = watchedClient(client);
    try {
      const result = await client.query(query);
      watch.release();
      return result;
    } catch (error) {
      watch.release(error);
      throw error;
    }
  }, statementRetries(query.text));
}

/**
 * The pool as Kysely's dialect takes it, whose clients go back to pg's pool with the error that
 * ended them (Kysely's driver releases every client without one, and pg's pool would keep a
 * client of a server turned read-only).
 */
function discardingPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const watch = watchedClient(client);
      const query = (...args: Parameters<pg.PoolClient['query']>) => {
        const result = (client.query as (...a: unknown[]) => unknown)(...args);
        // A cursor (Kysely's streams) is returned as it is; a query's promise is watched.
        if (result instanceof Promise) result.catch((error: unknown) => watch.failed(error));
        return result;
      };
      // Kysely calls `query` by the two shapes of its PostgresPoolClient, which pg's client has.
      return { query: query as unknown as PostgresPoolClient['query'], release: () => watch.release() };
    },
    end: () => pool.end(),
  };
}

/**
 * A client taken from pg's pool, watched until it goes back: the failure that ends it (then it
 * goes back with it, and the pool drops it), and an `error` it emits between two queries (a
 * connection terminated while a transaction waits on the program: pg's pool listens only to
 * idle clients, and an `error` nobody listens to ends the process).
 */
function watchedClient(client: pg.PoolClient): { failed(error: unknown): void; release(error?: unknown): void } {
  let broken: Error | undefined;
  const failed = (error: unknown) => {
    if (endsConnection(error)) broken ??= error as Error;
  };
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on('error', onError);
  return {
    failed,
    release(error) {
      if (error !== undefined) failed(error);
      client.removeListener('error', onError);
      client.release(broken);
    },
  };
}

/** PostgreSQL's dialect whose driver retries (ClusterDriver). */
class ClusterDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new ClusterDriver(super.createDriver());
  }
}

/**
 * Kysely's driver, with the retries of a statement run alone (outside a transaction) and of
 * taking a connection; a transaction's statements are the transaction's to retry whole
 * (`RetryingKysely`).
 */
class ClusterDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // Nothing ran yet: taking a connection may always be tried again.
    return new ClusterConnection(
      this.inner,
      await withRetries(
        () => this.inner.acquireConnection(),
        () => true,
      ),
    );
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const own = connection as ClusterConnection;
    own.inTransaction = true;
    await this.inner.beginTransaction(own.current, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as ClusterConnection;
    try {
      await this.inner.commitTransaction(own.current);
    } catch (error) {
      // A COMMIT whose answer never came may have been applied: it is not run again, the
      // caller hears `database_unavailable` at once (retry.ts).
      throw clusterFailureOf(error) === 'connection-lost' ? databaseUnavailable(error) : error;
    } finally {
      own.inTransaction = false;
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as ClusterConnection;
    own.inTransaction = false;
    try {
      await this.inner.rollbackTransaction(own.current);
    } catch (error) {
      // The connection is gone, and the server undid the transaction with it: the failure that
      // ended it is the one to report, not this one.
      if (!endsConnection(error)) throw error;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const own = connection as ClusterConnection;
    // Released already when a new connection could not be had in its place (`#reconnect`).
    if (!own.released) await this.inner.releaseConnection(own.current);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * One connection as Kysely holds it; outside a transaction a statement that met a cluster
 * failure runs again where that is safe, on a new connection when the old one ended.
 */
class ClusterConnection implements DatabaseConnection {
  inTransaction = false;
  /** `current` went back to the pool, and none took its place. */
  released = false;

  constructor(
    private readonly driver: Driver,
    public current: DatabaseConnection,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return this.current.executeQuery<R>(query);
    let failed = false;
    return withRetries(async () => {
      if (failed) await this.#reconnect();
      try {
        return await this.current.executeQuery<R>(query);
      } catch (error) {
        failed = endsConnection(error);
        throw error;
      }
    }, statementRetries(query.sql));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.current.streamQuery<R>(query, chunkSize);
  }

  /** The ended connection back to the pool (which drops it, `discardingPool`), and a new one. */
  async #reconnect(): Promise<void> {
    if (!this.released) await this.driver.releaseConnection(this.current);
    this.released = true;
    this.current = await withRetries(
      () => this.driver.acquireConnection(),
      () => true,
    );
    this.released = false;
  }
}

/**
 * Kysely whose transactions run again, whole, after a failure that undid them (a serialization
 * failure, a deadlock, a lost connection before the COMMIT, a read-only server): PostgreSQL
 * applied none of their writes, and a callback of `transaction().execute` does nothing outside
 * the database that a second run would repeat (it hands its events to the caller, which tells
 * them after the commit: datastore-write-ops.ts). A COMMIT whose answer was lost is not run
 * again: the caller gets `database_unavailable`.
 */
class RetryingKysely<DB> extends Kysely<DB> {
  override transaction(): TransactionBuilder<DB> {
    return retryingBuilder(super.transaction());
  }
}

function retryingBuilder<DB>(builder: TransactionBuilder<DB>): TransactionBuilder<DB> {
  return new Proxy(builder, {
    get(target, member) {
      if (member === 'execute')
        return (callback: Parameters<TransactionBuilder<DB>['execute']>[0]) =>
          withRetries(
            () => target.execute(callback),
            () => true,
          );
      if (member === 'setIsolationLevel' || member === 'setAccessMode')
        return (value: never) => retryingBuilder(target[member](value));
      return Reflect.get(target, member, target);
    },
  });
}
