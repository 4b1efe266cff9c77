import { Cache, type CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import { processStats } from '../core/process-stats.js';
import type { Item } from './datastore-repo.js';
import type { PageMarks } from './page-repo.js';

/**
 * Items of one store kept in memory on SQLite, where one server process owns the database:
 * a point read then costs a map lookup instead of a SQLite statement (whose file locking is
 * most of a getItem's own time). Every write through the repository drops what it touches
 * (in a transaction as it runs, a grouped write once it is committed), so no read after a
 * write is acknowledged sees an old value; a read that started before the write does not put
 * the old item back (the generation guard of core/cache.ts). PostgreSQL deployments run
 * several processes, which would not see each other's writes: there is no cache there.
 *
 * Entries also age out after `maxAgeMs`, a bound on anything a write of the store does not
 * drop.
 */
export function createItemCache(maxBytes: number, maxAgeMs: number, clock: Clock): Cache<Item> {
  return new Cache<Item>({ clock, ttlMs: maxAgeMs, maxSize: maxBytes, sizeOf, stats: processStats.caches.item });
}

/**
 * Roughly what an item holds in memory: its text twice over (UTF-16) and a fixed overhead. Kept
 * items carry no owner's name (the directory gives it on each read, datastore-repo.ts `named`).
 */
const sizeOf = (item: Item) => 2 * (item.key.length + (typeof item.value === 'string' ? item.value.length : 8)) + 100;

/**
 * How long a page mark is kept: a minute. Writes through Roost drop the marks they move at once
 * (below); the age bounds what else could (an operator's SQL), and a mark's first load walks
 * the index to its position (in a store of a million items, a part of a second).
 */
const PAGE_MARKS_MS = 60_000;

/**
 * A store's page memory (datastore/page-repo.ts): where pages start and the totals of
 * prefixes, a few thousand entries. Every write that adds, removes or gives away items drops
 * it: in this process at once (datastore-repo.ts `movingPages`), in the others when its event
 * arrives (datastore-service.ts). With `feed` (PostgreSQL's change feed), nothing answers from
 * it while the feed is down, and it is dropped when the feed is back.
 */
export function createPageMarks(clock: Clock, feed: CacheFeed | null): PageMarks {
  return new Cache<string | number>({ clock, ttlMs: PAGE_MARKS_MS, maxSize: 10_000, feed });
}
