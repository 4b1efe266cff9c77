import type { Told } from '../core/events.js';

/** An event with its place in the log: the id a client resumes from (`Last-Event-ID`). */
export interface Logged {
  id: number;
  event: Told;
}

/**
 * The recent events of this process, for clients that come back after a dropped connection
 * (issue 21, "Resume"): bounded by count and by age, so memory stays flat whatever the write
 * rate. A client asking for more than the log still holds gets `'reload'`, never a silent gap:
 * it must fetch what it shows again.
 */
export class ReplayLog {
  readonly #entries: Logged[] = [];
  /** Index of the oldest entry in `#entries` (a ring: no array shifting per event). */
  #start = 0;
  #next = 1;
  /** Ids below it may not be resumed from (see `gap`). */
  #floor = 0;
  readonly #capacity: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(options: { capacity: number; maxAgeMs: number; now: () => number }) {
    if (!(options.capacity >= 1)) throw new RangeError('capacity must be at least 1');
    this.#capacity = options.capacity;
    this.#maxAgeMs = options.maxAgeMs;
    this.#now = options.now;
  }

  /** The id of the newest event (0 before the first): a new stream starts after it. */
  get last(): number {
    return this.#next - 1;
  }

  /**
   * Marks a gap: events may have been lost here (the way from the other processes was down, or
   * nobody listened), so no client resumes across it; those that come back from before it get
   * `'reload'`.
   */
  gap(): void {
    // An id is skipped: a client that had seen everything before the gap is below the floor too.
    this.#next++;
    this.#floor = this.last;
  }

  /** Keeps an event and answers its id. */
  append(event: Told): number {
    const entry = { id: this.#next++, event };
    if (this.#entries.length < this.#capacity) this.#entries.push(entry);
    else {
      this.#entries[this.#start] = entry;
      this.#start = (this.#start + 1) % this.#capacity;
    }
    return entry.id;
  }

  /**
   * The events after `lastId`, oldest first; `'reload'` when some of them are gone (too many
   * since, or too old) or when `lastId` was never given out here (another process, a restart).
   *
   * @example
   * log.since(41); // [{ id: 42, event }, …] or 'reload'
   */
  since(lastId: number): Logged[] | 'reload' {
    if (!Number.isSafeInteger(lastId) || lastId < this.#floor || lastId > this.last) return 'reload';
    if (lastId === this.last) return [];
    const ordered = this.#ordered();
    const oldest = ordered[0];
    // The one after lastId must still be here, and not past its age.
    if (!oldest || oldest.id > lastId + 1) return 'reload';
    // By id, not by position: a gap skips an id.
    const after = ordered.slice(ordered.findIndex((e) => e.id > lastId));
    const first = after[0];
    if (first && this.#now() - first.event.at > this.#maxAgeMs) return 'reload';
    return after;
  }

  #ordered(): Logged[] {
    return this.#start === 0
      ? this.#entries
      : [...this.#entries.slice(this.#start), ...this.#entries.slice(0, this.#start)];
  }
}
