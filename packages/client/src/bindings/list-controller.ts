import type { DataStore } from '../datastore.js';
import type { Item, ItemQuery } from '../datastore-types.js';
import type { Realtime } from '../realtime.js';
import { refreshOnChanges } from './live-refresh.js';
import { PageController, type PageState } from './page-controller.js';

export type ListState = PageState<Item>;

/** A data store's items a page at a time (`list` with `start` and `size`). */
export class ListController extends PageController<Item> {
  /** `query.size` is the page size (default 20). */
  constructor(
    readonly store: DataStore,
    readonly query: Omit<ItemQuery, 'start'> = {},
  ) {
    super(query.size ?? 20, (start, size, signal) => store.list({ ...query, size, start }, { signal }));
  }

  /**
   * Shows the page again when the store changes on `live` (docs/realtime.md): an item may enter,
   * leave or move across pages, which only the server's count and order can tell. Returns the
   * function that stops it.
   */
  watch(live: Realtime): () => void {
    return refreshOnChanges(live, `items/${this.store.name}`, this.refresh);
  }
}
