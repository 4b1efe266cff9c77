import { isRoostError, type RoostError } from '../errors.js';
import type { Collection, RecordChange } from '../collection.js';
import type { AnyRecord, RecordBase, RecordQuery } from '../collection-types.js';
import type { Realtime } from '../realtime.js';
import { liveReady } from './live-ready.js';
import { Latest, Observable } from './observable.js';
import { recordOrder } from './record-order.js';

export interface RecordsState<R> {
  /** The records loaded so far, in the query's order. */
  items: R[];
  /** More records follow: `loadMore()` fetches the next page. */
  hasMore: boolean;
  /** With `total: true`: every record the query matches; null otherwise. */
  total: number | null;
  loading: boolean;
  error: RoostError | null;
}

/** A query of a live list: a page's parameters but its cursor. */
export type RecordsQuery<R = AnyRecord> = Omit<RecordQuery<R>, 'cursor'>;

/** Changes within this many milliseconds ask for one new total (as bindings/live-refresh.ts). */
const SETTLE_MS = 50;

/**
 * A collection's records page after page (the cursor of each page asks for the next), following
 * a live query of the same filter by applying each change to the records shown
 * (docs/collections.md "Live queries"): a record that enters or changes takes its place in the
 * order, one that leaves or is deleted goes; one that sorts past the records loaded waits for
 * `loadMore`. Changes heard while a page loads are applied after it, so none is lost or undone
 * by an older answer. Actions never reject; failures land in `error`.
 */
export class RecordsController<R extends RecordBase> {
  readonly state = new Observable<RecordsState<R>>({
    items: [],
    hasMore: false,
    total: null,
    loading: true,
    error: null,
  });
  readonly #latest = new Latest();
  readonly #order: (a: R, b: R) => number;
  #next: string | null = null;
  /** Changes heard while a page loads (null: none loading). */
  #pending: RecordChange<R>[] | null = null;
  /** Its live subscription is in place (watch), or no live subscription. */
  #ready: Promise<void> = Promise.resolve();
  #recount: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly collection: Collection<R>,
    readonly query: RecordsQuery<R> = {},
  ) {
    this.#order = recordOrder(query.sort as string | readonly string[] | undefined);
  }

  /** Loads the first page again (the records shown go). */
  readonly refresh = (): Promise<void> => this.#load(null);

  /** Loads the next page after the records shown; nothing when there is none. */
  readonly loadMore = (): Promise<void> => (this.#next === null ? Promise.resolve() : this.#load(this.#next));

  async #load(cursor: string | null): Promise<void> {
    const signal = this.#latest.next();
    this.#pending ??= [];
    this.state.set({ loading: true });
    try {
      await this.#ready;
      const page = await this.collection.list({ ...this.query, cursor }, { signal });
      const kept = cursor === null ? [] : this.state.get().items;
      const known = new Set(kept.map((r) => r.id));
      this.#next = page.next;
      this.state.set({
        items: [...kept, ...page.items.filter((r) => !known.has(r.id))],
        hasMore: page.next !== null,
        total: page.total ?? null,
        loading: false,
        error: null,
      });
    } catch (error) {
      if (!isRoostError(error) || error.code === 'aborted') return;
      this.state.set({ loading: false, error });
    }
    const pending = this.#pending ?? [];
    this.#pending = null;
    for (const change of pending) this.#apply(change);
  }

  /** Follows the live query of this list's filter on `live` (the collection's own stream when undefined). */
  watch(live: Realtime | undefined): () => void {
    const realtime = live ?? this.collection.realtime;
    const stop = this.collection.live({ filter: this.query.filter }, (change) => this.#hear(change), {
      realtime,
      onError: (error) => this.state.set({ error }),
    });
    this.#ready = liveReady(realtime);
    return () => {
      clearTimeout(this.#recount);
      stop();
    };
  }

  #hear(change: RecordChange<R>): void {
    if (change.event === 'reload') void this.refresh();
    else if (this.#pending) this.#pending.push(change);
    else this.#apply(change);
  }

  #apply(change: RecordChange<R>): void {
    if (change.event === 'reload') return;
    const gone = change.event === 'record.deleted' || change.left === true;
    if (!gone && !change.record) return void this.refresh(); // not carried: ask
    const { items, hasMore } = this.state.get();
    const current = items.find((r) => r.id === change.id);
    const record = gone ? undefined : change.record;
    // An older copy than the one shown (heard while a newer page loaded): nothing to do.
    if (record && current && current.updated > record.updated) return;
    const rest = items.filter((r) => r.id !== change.id);
    if (record) {
      const at = rest.findIndex((r) => this.#order(record, r) < 0);
      // Past the last record loaded while more follow: the page that holds it will show it.
      if (at >= 0) rest.splice(at, 0, record);
      else if (!hasMore) rest.push(record);
    }
    this.state.set({ items: rest });
    if (this.query.total) this.#countAgain();
  }

  /** The total again, once per burst of changes: only the server knows whether a record entered its filter. */
  #countAgain(): void {
    if (this.#recount !== undefined) return;
    this.#recount = setTimeout(async () => {
      this.#recount = undefined;
      try {
        const { total } = await this.collection.list({ ...this.query, perPage: 1, total: true });
        this.state.set({ total: total ?? null });
      } catch (error) {
        if (isRoostError(error)) this.state.set({ error });
      }
    }, SETTLE_MS);
  }

  /** The view went away: a late answer changes nothing. */
  dispose(): void {
    clearTimeout(this.#recount);
    this.#latest.abort();
  }
}
