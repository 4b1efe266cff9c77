import type { Clock } from './clock.js';
import type { CacheStats } from './process-stats.js';

/** A change another process published: `null` after the feed was down (forget everything). */
export type FeedChange = { topic: string; key: string } | null;

/** How processes on one database tell each other what changed (storage/change-feed.ts has this shape). */
export interface CacheFeed {
  /** False while messages may be missed: nothing answers from memory then. */
  readonly live: boolean;
  publish(topic: string, key: string): Promise<void>;
  subscribe(listener: (change: FeedChange) => void): void;
}

export interface CacheOptions<V> {
  clock: Clock;
  /** How long an entry may answer, in milliseconds; 0 keeps nothing. */
  ttlMs: number;
  /** The most the cache holds, as `sizeOf` counts (default: one per entry). */
  maxSize: number;
  sizeOf?: (value: V, key: string) => number;
  /** Hits and misses, for /metrics (core/process-stats.ts). */
  stats?: CacheStats;
  /**
   * The other processes' changes. While the feed is down nothing answers from memory; when it
   * is back everything is forgotten (what was published meanwhile is lost); a message on
   * `topic` forgets the entry of its key.
   */
  feed?: CacheFeed | null;
  topic?: string;
  /** Forget every entry, not only the one of its key, on a message of `topic`. */
  forgetAllOnChange?: boolean;
}

type Entry<V> = { value: V; at: number; size: number };

/**
 * The one cache of Roost's hot reads: sessions (users/session-cache.ts), permission entries
 * (storage/permission-store.ts), runtime settings (storage/settings-store.ts), items
 * (datastore/item-cache.ts) and user names (users/user-directory.ts).
 *
 * A read that started before a change must not put its (old) result back afterwards: every
 * forget bumps `generation`, and `keep` stores a value only when the generation its read
 * started with is still current. When full it starts again rather than track recency on every
 * hit: hot entries come back at once.
 */
export class Cache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #loads = new Map<string, Promise<V>>();
  readonly #options: CacheOptions<V>;
  #size = 0;
  #generation = 0;

  constructor(options: CacheOptions<V>) {
    this.#options = options;
    const { feed, topic } = options;
    if (feed) this.follow(topic, options.forgetAllOnChange ? () => this.forgetAll() : (key) => this.forget(key));
  }

  /** Whether entries may answer now: the cache is on, and the feed (if any) is live. */
  get usable(): boolean {
    const feed = this.#options.feed;
    return this.#options.ttlMs > 0 && (feed ? feed.live : true);
  }

  /** Taken before a read whose result may be kept. */
  get generation(): number {
    return this.#generation;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    const stats = this.#options.stats;
    if (entry && this.usable && this.#options.clock.now() - entry.at < this.#options.ttlMs) {
      if (stats) stats.hits++;
      return entry.value;
    }
    if (stats) stats.misses++;
    return undefined;
  }

  /** Keeps a value read at `generation` (not when something was forgotten since, or it is too large). */
  keep(key: string, value: V, generation: number): void {
    if (generation !== this.#generation || !this.usable) return;
    const size = this.#options.sizeOf?.(value, key) ?? 1;
    if (size > this.#options.maxSize) return;
    this.#drop(key);
    if (this.#size + size > this.#options.maxSize) this.#clear();
    this.#entries.set(key, { value, at: this.#options.clock.now(), size });
    this.#size += size;
  }

  /**
   * The kept value, or `load`'s, kept when nothing was forgotten meanwhile. Reads of one key
   * that miss together share one load. A hit answers without a promise, and `load` takes the
   * key so that a caller can pass one function made once: hot paths ask often.
   */
  read(key: string, load: (key: string) => Promise<V>): V | Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    let loading = this.#loads.get(key);
    if (!loading) {
      const started = this.#generation;
      const current = load(key).then(
        (value) => {
          if (this.#loads.get(key) === current) this.#loads.delete(key);
          this.keep(key, value, started);
          return value;
        },
        (err: unknown) => {
          if (this.#loads.get(key) === current) this.#loads.delete(key);
          throw err;
        },
      );
      loading = current;
      this.#loads.set(key, current);
    }
    return loading;
  }

  forget(key: string): void {
    this.#generation++;
    this.#loads.delete(key);
    this.#drop(key);
  }

  forgetWhere(test: (value: V, key: string) => boolean): void {
    this.#generation++;
    this.#loads.clear();
    for (const [key, entry] of this.#entries) if (test(entry.value, key)) this.#drop(key);
  }

  forgetAll(): void {
    this.#generation++;
    this.#loads.clear();
    this.#clear();
  }

  /**
   * Runs a write with `forget` before and after it. The first stops answers from memory at
   * once; the second drops what a read running during the write took from the database (the
   * old row) and kept, and stops reads still in flight from keeping it. Without the second, a
   * busy token kept working for a cache lifetime after its revocation
   * (test/http/session-revocation.test.ts).
   */
  async around<T>(forget: () => void, write: () => Promise<T>): Promise<T> {
    forget();
    try {
      return await write();
    } finally {
      forget();
    }
  }

  /** Tells the other processes that `key` changed: call it once the change is committed. */
  async publish(key: string, topic = this.#options.topic): Promise<void> {
    if (topic !== undefined) await this.#options.feed?.publish(topic, key);
  }

  /** Forgets by `forget` what the other processes publish on `topic`, and everything after the feed was down. */
  follow(topic: string | undefined, forget: (key: string) => void): void {
    this.#options.feed?.subscribe((change) => {
      if (change === null) this.forgetAll();
      else if (topic !== undefined && change.topic === topic) forget(change.key);
    });
  }

  #drop(key: string): void {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#size -= old.size;
    this.#entries.delete(key);
  }

  #clear(): void {
    this.#entries.clear();
    this.#size = 0;
  }
}
