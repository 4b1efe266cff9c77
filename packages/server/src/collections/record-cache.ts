import { Cache } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import { processStats } from '../core/process-stats.js';
import type { StoredRecord } from './records-repo.js';

/**
 * Records kept in memory on SQLite, where one server process owns the database, as the data
 * store's items are (datastore/item-cache.ts, whose reasoning holds here): a get by id whose rule
 * needs no condition (`view: ""`, or an administrator) costs a map lookup instead of a statement
 * and a JSON parse. records-repo.ts drops every record a write touches, before and after it (in
 * a transaction, once more when it ends), and a read that started before a write does not put
 * the old record back (core/cache.ts's generation). Gets under a rule's condition run their
 * statement: the condition is SQL. PostgreSQL deployments run several processes: no cache there.
 */
export type RecordCache = Cache<CachedRecord>;

/**
 * A record and the JSON text of its data as it was read: a page's row of the same text, owner and
 * time is this record, without a JSON.parse (records-repo.ts `readThrough`).
 */
interface CachedRecord {
  readonly record: StoredRecord;
  readonly text: string;
}

export function createRecordCache(maxBytes: number, maxAgeMs: number, clock: Clock): RecordCache {
  return new Cache<CachedRecord>({
    clock,
    ttlMs: maxAgeMs,
    maxSize: maxBytes,
    sizeOf,
    stats: processStats.caches.record,
  });
}

/** The key of a record: collection names have no `/` (collection-fields.ts `COLLECTION_NAME_PATTERN`). */
export const recordKey = (collection: string, id: string) => `${collection}/${id}`;

/** Roughly what a record holds in memory: its JSON text twice over (the text and its parse) and a fixed overhead. */
const sizeOf = (cached: CachedRecord) => 2 * cached.text.length + 200;

/**
 * What a transaction's writes touched, dropped again when it ends (committed or not): ids by
 * collection, or the whole collection past `MANY` (a migration rewrites every record).
 */
export class TouchedRecords {
  static readonly MANY = 1000;
  readonly #touched = new Map<string, Set<string> | 'all'>();
  readonly cache: RecordCache;
  constructor(cache: RecordCache) {
    this.cache = cache;
  }

  /** Drops the record now and notes it for the end. */
  touch(collection: string, id: string): void {
    this.cache.forget(recordKey(collection, id));
    const ids = this.#touched.get(collection);
    if (ids === 'all') return;
    if (ids && ids.size >= TouchedRecords.MANY) this.#touched.set(collection, 'all');
    else if (ids) ids.add(id);
    else this.#touched.set(collection, new Set([id]));
  }

  /** Drops the collection's records now and at the end. */
  touchAll(collection: string): void {
    forgetCollection(this.cache, collection);
    this.#touched.set(collection, 'all');
  }

  /** Drops everything noted: the transaction has ended. */
  end(): void {
    for (const [collection, ids] of this.#touched) {
      if (ids === 'all') forgetCollection(this.cache, collection);
      else for (const id of ids) this.cache.forget(recordKey(collection, id));
    }
  }
}

export function forgetCollection(cache: RecordCache, collection: string): void {
  const prefix = `${collection}/`;
  cache.forgetWhere((_, key) => key.startsWith(prefix));
}
