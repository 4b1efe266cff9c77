import { isRoostError, type RoostError } from '../errors.js';
import type { DataStore } from '../datastore.js';
import type { Item, ItemQuery } from '../datastore-types.js';
import { Latest, Observable } from './observable.js';

export interface ListState {
  items: Item[];
  /** The page shown, 1-based. */
  page: number;
  /** Pages in all (at least 1). */
  pages: number;
  /** Items in all, across pages. */
  total: number;
  loading: boolean;
  error: RoostError | null;
}

/**
 * A data store's items a page at a time (`list` with `start`
 * and `size`). Actions never reject; failures land in `error`.
 */
export class ListController {
  readonly state = new Observable<ListState>({ items: [], page: 1, pages: 1, total: 0, loading: true, error: null });
  readonly #latest = new Latest();
  readonly #size: number;

  /** `query.size` is the page size (default 20). */
  constructor(
    readonly store: DataStore,
    readonly query: Omit<ItemQuery, 'start'> = {},
  ) {
    this.#size = query.size ?? 20;
  }

  /** Show page `page` (clamped to 1 and above). */
  readonly goTo = async (page: number): Promise<void> => {
    const wanted = Math.max(1, Math.floor(page));
    const signal = this.#latest.next();
    this.state.set({ loading: true });
    try {
      const answer = await this.store.list(
        { ...this.query, size: this.#size, start: (wanted - 1) * this.#size + 1 },
        { signal },
      );
      const pages = Math.max(1, Math.ceil(answer.total / this.#size));
      this.state.set({ items: answer.items, page: wanted, pages, total: answer.total, loading: false, error: null });
    } catch (error) {
      if (isRoostError(error) && error.code !== 'aborted') this.state.set({ loading: false, error });
    }
  };

  readonly next = (): Promise<void> => this.goTo(Math.min(this.state.get().page + 1, this.state.get().pages));
  readonly previous = (): Promise<void> => this.goTo(this.state.get().page - 1);
  readonly refresh = (): Promise<void> => this.goTo(this.state.get().page);

  dispose(): void {
    this.#latest.abort();
  }
}
