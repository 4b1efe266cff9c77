import { isRoostError, type RoostError } from '../errors.js';
import type { DataStore } from '../datastore.js';
import type { Item, Value } from '../datastore-types.js';
import { Latest, Observable } from './observable.js';
import type { Realtime } from '../realtime.js';

export interface ItemState {
  /** The item, or `null` when there is none (a missing item is not a failure). */
  item: Item | null;
  loading: boolean;
  error: RoostError | null;
}

/**
 * One item of a data store by key: load, save (create or replace),
 * remove. Actions never reject; failures land in `error`.
 */
export class ItemController {
  readonly state = new Observable<ItemState>({ item: null, loading: true, error: null });
  readonly #latest = new Latest();

  constructor(
    readonly store: DataStore,
    readonly key: string,
  ) {}

  readonly refresh = async (): Promise<void> => {
    const signal = this.#latest.next();
    this.state.set({ loading: true });
    try {
      const { items: _items, ...item } = await this.store.getItem(this.key, { signal });
      this.state.set({ item, loading: false, error: null });
    } catch (error) {
      if (!isRoostError(error) || error.code === 'aborted') return;
      this.state.set(
        error.code === 'item_not_found' ? { item: null, loading: false, error: null } : { loading: false, error },
      );
    }
  };

  /** Create or replace the item's value, then show it as the server keeps it. */
  readonly save = async (value: Value): Promise<boolean> => {
    this.state.set({ loading: true });
    try {
      await this.store.setItem(this.key, value);
    } catch (error) {
      this.state.set({ loading: false, error: error as RoostError });
      return false;
    }
    await this.refresh();
    return true;
  };

  readonly remove = async (): Promise<boolean> => {
    this.state.set({ loading: true });
    try {
      await this.store.removeItem(this.key);
      this.state.set({ item: null, loading: false, error: null });
      return true;
    } catch (error) {
      this.state.set({ loading: false, error: error as RoostError });
      return false;
    }
  };

  /**
   * Follows the item's changes on `live` (docs/realtime.md): each event carries the item as it
   * is now, so nothing is asked again; `reload` asks. Returns the function that stops it.
   */
  watch(live: Realtime): () => void {
    // A prefix, not `keys=`: a key may hold the comma that separates keys.
    const topic = `items/${this.store.name}?prefix=${encodeURIComponent(this.key)}`;
    return live.subscribe(topic, (change) => {
      if (change.event === 'reload') void this.refresh();
      else if ('key' in change && change.key === this.key && change.event.startsWith('item.'))
        this.state.set({ item: 'item' in change && change.item ? change.item : null, loading: false, error: null });
    });
  }

  /** The view went away: a late answer changes nothing. */
  dispose(): void {
    this.#latest.abort();
  }
}
