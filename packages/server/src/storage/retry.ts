import { setTimeout as sleep } from 'node:timers/promises';
import { defineErrors, isRoostError } from '../core/errors.js';

/**
 * The failures a PostgreSQL cluster has (issue 44, item 2; docs/scaling.md, "When the database
 * fails"), by what they tell of the statement or transaction that met them:
 * - `not-applied`: PostgreSQL refused or undid it whole, so running it again is safe: a
 *   serialization failure (40001), a deadlock (40P01), a server that is read-only now (25006, a
 *   primary turned replica), too many connections (53300), a server starting or stopping
 *   (57P03);
 * - `connection-lost`: the connection ended under it (57P01 an administrator's or a failover's
 *   termination, 57P02, class 08, a reset socket, pg's "Connection terminated"): a transaction that
 *   had not sent its COMMIT is undone, a single statement may or may not have been applied.
 * Anything else (a unique violation, a syntax error) is the caller's, as before.
 */
export type ClusterFailure = 'not-applied' | 'connection-lost';

const NOT_APPLIED = new Set(['40001', '40P01', '25006', '53300', '57P03']);
const CONNECTION_LOST_CODES = new Set(['57P01', '57P02', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
// pg's own errors when the socket closed, which carry no code (pg/lib/client.js).
const CONNECTION_LOST_TEXT = /^Connection terminated|not queryable|^timeout exceeded when trying to connect/;

export function clusterFailureOf(error: unknown): ClusterFailure | null {
  if (!(error instanceof Error) || isRoostError(error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NOT_APPLIED.has(code)) return 'not-applied';
    if (CONNECTION_LOST_CODES.has(code) || code.startsWith('08')) return 'connection-lost';
  }
  return CONNECTION_LOST_TEXT.test(error.message) ? 'connection-lost' : null;
}

/**
 * Whether the connection that met `error` must not serve another query: it is gone, or it
 * reaches a server that turned read-only (its next transaction would meet 25006 again; a new
 * connection reaches the new primary through the pooler or the failover's address).
 */
export function endsConnection(error: unknown): boolean {
  return clusterFailureOf(error) === 'connection-lost' || (error as { code?: unknown } | null)?.code === '25006';
}

export const databaseErrors = defineErrors({
  database_unavailable: {
    kind: 'unavailable',
    message: 'The database is unavailable for a moment (a failover, a restart or a conflict). Try again shortly.',
  },
});

/** What the caller may still retry after the database failed: the answer is a 503 with Retry-After. */
export function databaseUnavailable(cause: unknown): Error {
  return databaseErrors.database_unavailable({ cause, retryAfterSeconds: 1 });
}

/** The driver's error behind a `database_unavailable`, else `error` itself: what explains a failure to start. */
export function driverErrorOf(error: unknown): unknown {
  return isRoostError(error) && error.code === 'database_unavailable' ? error.cause : error;
}

/**
 * The waits before each retry, in milliseconds: about two seconds in all, which covers a
 * conflict, a deadlock and a pooler's reconnection; a failover that takes longer is answered
 * with `database_unavailable` and the client's own retry (docs/errors.md).
 */
const WAITS_MS = [20, 100, 300, 600, 1000];

/**
 * Run `attempt` until it succeeds, retrying the cluster failures that `safe` allows after a
 * short wait (with jitter, so that two transactions that conflicted do not meet again). A
 * cluster failure that may not be retried, or that outlasts the retries, becomes
 * `database_unavailable`; any other error is thrown as it is.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  safe: (failure: ClusterFailure) => boolean,
): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const failure = clusterFailureOf(error);
      if (failure === null) throw error;
      const wait = WAITS_MS[tries];
      if (wait === undefined || !safe(failure)) throw databaseUnavailable(error);
      await sleep(wait * (0.5 + Math.random()));
    }
  }
}

/**
 * Whether a statement run alone (outside a transaction) may run again after its connection was
 * lost: a read may; a write may have been applied before the connection went, so it is answered
 * with `database_unavailable` instead of being applied twice.
 */
function isRead(sqlText: string): boolean {
  return /^\s*select\b/i.test(sqlText) && !/\bfor\s+(update|share|no key update|key share)\b/i.test(sqlText);
}

/** The retries of a statement run alone, `sqlText` its text. */
export function statementRetries(sqlText: string): (failure: ClusterFailure) => boolean {
  return (failure) => failure === 'not-applied' || isRead(sqlText);
}
