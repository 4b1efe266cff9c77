import { isRoostError, type RoostError } from '../errors.js';
import type { Collection, RecordChange } from '../collection.js';
import type { RecordBase, RecordPatch } from '../collection-types.js';
import { filter } from '../record-filter.js';
import type { Realtime } from '../realtime.js';
import { liveReady } from './live-ready.js';
import { Latest, Observable } from './observable.js';

export interface RecordState<R> {
  /** The record, or `null` when there is none, or none the caller may see (not a failure). */
  record: R | null;
  loading: boolean;
  error: RoostError | null;
}

/**
 * One record of a collection by id: load, change, delete, and follow its changes as a live query
 * of `id = "<id>"`, each change applied as it carries the record (records-controller.ts does the
 * same for a list). Changes heard while it loads are applied after the answer. Actions never
 * reject; failures land in `error`.
 */
export class RecordController<R extends RecordBase> {
  readonly state = new Observable<RecordState<R>>({ record: null, loading: true, error: null });
  readonly #latest = new Latest();
  #pending: RecordChange<R>[] | null = null;
  /** Its live subscription is in place (watch), or no live subscription. */
  #ready: Promise<void> = Promise.resolve();

  constructor(
    readonly collection: Collection<R>,
    readonly id: string,
  ) {}

  readonly refresh = async (): Promise<void> => {
    const signal = this.#latest.next();
    this.#pending ??= [];
    this.state.set({ loading: true });
    try {
      await this.#ready;
      this.state.set({ record: await this.collection.get(this.id, { signal }), loading: false, error: null });
    } catch (error) {
      if (!isRoostError(error) || error.code === 'aborted') return;
      this.state.set(
        error.code === 'record_not_found' ? { record: null, loading: false, error: null } : { loading: false, error },
      );
    }
    const pending = this.#pending ?? [];
    this.#pending = null;
    for (const change of pending) this.#apply(change);
  };

  /** Changes the fields given (`null` removes one), then shows the record as stored. */
  readonly update = (patch: RecordPatch<R>): Promise<boolean> =>
    this.#write(() => this.collection.update(this.id, patch));

  readonly remove = (): Promise<boolean> =>
    this.#write(async () => {
      await this.collection.delete(this.id);
      return null;
    });

  async #write(work: () => Promise<R | null>): Promise<boolean> {
    this.state.set({ loading: true });
    try {
      this.state.set({ record: await work(), loading: false, error: null });
      return true;
    } catch (error) {
      this.state.set({ loading: false, error: error as RoostError });
      return false;
    }
  }

  /** Follows the record's changes on `live` (the collection's own stream when undefined). */
  watch(live: Realtime | undefined): () => void {
    const realtime = live ?? this.collection.realtime;
    // An id no filter can hold (a NUL, from an address, say) is no record's: `get` says so (422).
    const byId = safely(() => filter('id = {:id}', { id: this.id }));
    if (byId === null) return () => {};
    const stop = this.collection.live(
      { filter: byId },
      (change) => {
        if (change.event === 'reload') void this.refresh();
        else if (this.#pending) this.#pending.push(change);
        else this.#apply(change);
      },
      { realtime, onError: (error) => this.state.set({ error }) },
    );
    this.#ready = liveReady(realtime);
    return stop;
  }

  #apply(change: RecordChange<R>): void {
    if (change.event === 'reload' || change.id !== this.id) return;
    const shown = this.state.get().record;
    if (change.event === 'record.deleted' || change.left) this.state.set({ record: null });
    else if (!change.record)
      void this.refresh(); // not carried: ask
    else if (!shown || shown.updated <= change.record.updated) this.state.set({ record: change.record });
  }

  /** The view went away: a late answer changes nothing. */
  dispose(): void {
    this.#latest.abort();
  }
}

function safely(make: () => string): string | null {
  try {
    return make();
  } catch {
    return null;
  }
}
