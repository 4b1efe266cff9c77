import { processStats } from '../core/process-stats.js';
import type { Clock } from '../core/clock.js';
import type { Item } from './datastore-repo.js';

/**
 * Items of one store kept in memory on SQLite, where one server process owns the database:
 * a point read then costs a map lookup instead of a SQLite statement (whose file locking is
 * most of a getItem's own time). Every write through the repository drops what it touches
 * (in a transaction as it runs, a grouped write once it is committed), so no read after a
 * write is acknowledged sees an old value. PostgreSQL deployments
 * run several processes, which would not see each other's writes: there is no cache there.
 *
 * A read that started before a write must not put its (old) result back afterwards: each
 * write bumps `version`, and a read caches its result only if the version it started with is
 * still current.
 *
 * Entries also age out after `maxAgeMs`: an item shows its owner's name, and a renamed account
 * is a write of the user service, not of the store. Names follow a rename as soon as sessions
 * do (`users.sessionCacheSeconds`).
 */
export class ItemCache {
  readonly #items = new Map<string, { item: Item; at: number }>();
  #bytes = 0;
  #version = 0;
  readonly #maxBytes: number;
  readonly #maxAgeMs: number;
  readonly #clock: Clock;

  constructor(maxBytes: number, maxAgeMs: number, clock: Clock) {
    this.#maxBytes = maxBytes;
    this.#maxAgeMs = maxAgeMs;
    this.#clock = clock;
  }

  get version(): number {
    return this.#version;
  }

  get(key: string): Item | undefined {
    const entry = this.#items.get(key);
    if (entry && this.#clock.now() - entry.at < this.#maxAgeMs) {
      processStats.caches.item.hits++;
      return entry.item;
    }
    processStats.caches.item.misses++;
    return undefined;
  }

  /** Keep an item read at `version` (ignored when a write came in between, or it is too large). */
  put(item: Item, version: number): void {
    if (version !== this.#version) return;
    const size = sizeOf(item);
    if (size > this.#maxBytes) return;
    // Full: start again rather than track recency on every hit; hot items come back at once.
    if (this.#bytes + size > this.#maxBytes) this.#clear();
    const old = this.#items.get(item.key);
    if (old) this.#bytes -= sizeOf(old.item);
    this.#items.set(item.key, { item, at: this.#clock.now() });
    this.#bytes += size;
  }

  /** Before a write of these keys. */
  forget(keys: Iterable<string>): void {
    this.#version++;
    for (const key of keys) {
      const old = this.#items.get(key);
      if (!old) continue;
      this.#bytes -= sizeOf(old.item);
      this.#items.delete(key);
    }
  }

  /** Before a write addressed by id (or any write whose keys are not at hand). */
  forgetAll(): void {
    this.#version++;
    this.#clear();
  }

  #clear(): void {
    this.#items.clear();
    this.#bytes = 0;
  }
}

/** Roughly what an item holds in memory: its text twice over (UTF-16) and a fixed overhead. */
const sizeOf = (item: Item) =>
  2 * (item.key.length + (typeof item.value === 'string' ? item.value.length : 8) + (item.ownerName?.length ?? 0)) +
  100;
