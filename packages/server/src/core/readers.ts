import type { Principal } from './permissions.js';

/**
 * Whose reads the work under way is, for read replicas (docs/scaling.md, "Read replicas";
 * storage/replica-reads.ts keeps the rest). The HTTP app runs each request as its caller's
 * (http/reader-context.ts); the stores' reads that may be a little stale then go to a replica
 * that has replayed the caller's own last write, else to the primary. Work outside any reader
 * (the live changes' reads, jobs, the CLI, an embedding program) reads the primary.
 */
export interface Readers {
  /** Whether replicas are configured at all (without them no request pays for a reader). */
  readonly replicated: boolean;
  /** Runs `work` as `reader`'s (`readerOf`): its replica reads see what that reader wrote. */
  as<T>(reader: string, work: () => T): T;
  /** Each replica's state, for /metrics (http/metrics.ts). */
  replicas(): ReplicaState[];
}

/** One replica as the last look at it found it (every 100 ms, storage/replica-reads.ts). */
export interface ReplicaState {
  /** `host:port/database`, no credentials. */
  replica: string;
  /** Whether it answered its last look and is in use. */
  up: boolean;
  /** WAL bytes the primary wrote that the replica has not replayed; null while it is down. */
  lagBytes: number | null;
  /** Seconds since the replica replayed the newest transaction it has received but not applied (0: caught up). */
  lagSeconds: number | null;
  /** Reads of the stores this process sent there. */
  reads: number;
}

/** Without replicas: every read on the primary, and nothing kept per request. */
export const PRIMARY_ONLY: Readers = Object.freeze({
  replicated: false,
  as: <T>(_reader: string, work: () => T): T => work(),
  replicas: () => [],
});

/**
 * The reader a caller is: a user (whichever session or key of theirs; what one device wrote the
 * next reads back), an API key, or an anonymous client by its address.
 */
export function readerOf(principal: Principal, address: string): string {
  if (principal.key) return `key:${principal.key.id}`;
  if (principal.userId !== null) return `user:${principal.userId}`;
  return `address:${address}`;
}
