/** Row types of the data store tables (see `migrations/2026-11-22-01-datastore.ts`). */
import type { Generated } from 'kysely';

/**
 * One item of one data store. A value is kept as text; a number is kept in `number` as well,
 * so that sorting by value orders numbers numerically, and is given back as a number.
 */
export interface DataStoreItemsTable {
  /** Never reused (SQLite `autoincrement`, a PostgreSQL sequence): an id names one item for good. */
  id: Generated<number>;
  store: string;
  key: string;
  value: string;
  number: number | null;
  /** The owner's user id; null for an item created without a signed-in user (none today). */
  owner: string | null;
  /** Time of the last write, milliseconds since the epoch. */
  updated: number;
}

/**
 * How many items a store holds: `owner` '' counts every item, an owner's id that owner's. Kept
 * by triggers with every write (`migrations/2026-11-29-01-datastore-counts.ts`); never written here;
 * a count is the sum of its stripes.
 */
interface DataStoreCountsTable {
  store: string;
  owner: string;
  /** Counts are split in stripes that add up (one per PostgreSQL connection; 0 on SQLite). */
  stripe: number;
  n: number;
}

export interface DataStoreTables {
  datastore_items: DataStoreItemsTable;
  datastore_counts: DataStoreCountsTable;
}
