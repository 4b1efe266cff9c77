import type { Principal } from './permissions.js';

/**
 * The recent requests kept for the admin logs page (docs/operations.md, "Logs"; admin/pages/
 * logs-pages.ts): what the request's log line says (http/request-log.ts), with `at` in ISO 8601.
 * The HTTP layer adds them without waiting; the store writes them in batches, off the answer's way
 * (storage/request-log-store.ts), and forgets them after `requestLog.retentionHours`.
 */
export interface RequestRecord {
  /** When the answer was sent, ISO 8601 in UTC. */
  at: string;
  requestId: string;
  method: string;
  /** As logged: secrets of the query left out. */
  url: string;
  route: string | null;
  status: number;
  ms: number;
  userId: string | null;
  /** Null when the client had gone before the answer's end (Node knows no address of a closed socket). */
  address: string | null;
  code: string | null;
}

export interface RequestFilter {
  /** One status, or a class: 400 with `statusClass` for 4xx. */
  status?: number;
  statusClass?: 2 | 3 | 4 | 5;
  route?: string;
  userId?: string;
  requestId?: string;
  /** ISO 8601 bounds of `at`, inclusive. */
  since?: string;
  until?: string;
  limit: number;
}

export interface RequestRecords {
  /** Kept for the next batch; never waits, never throws. */
  add(record: RequestRecord): void;
  /** Newest first. Requires `administer`. */
  list(caller: Principal, filter: RequestFilter): Promise<RequestRecord[]>;
  /** Writes what is waiting (the tests, the close). */
  flush(): Promise<void>;
  close(): Promise<void>;
}
