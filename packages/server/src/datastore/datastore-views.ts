import type { Item } from './datastore-repo.js';

/** The original's item timestamp: float seconds since the epoch (UTC). */
export const timestampOf = (item: Pick<Item, 'updated'>) => item.updated / 1000;

/** The owner as answers show it: the user name, as the file store and the original connectors show it; `""` when the account is gone. */
const ownerOf = (item: Item) => item.ownerName ?? '';

/** An item on the wire: key, value, timestamp, id and owner (the owner's user name). */
export function itemView(item: Item) {
  return { key: item.key, value: item.value, timestamp: timestampOf(item), id: item.id, owner: ownerOf(item) };
}

export function ownerView(item: Item) {
  return { key: item.key, owner: ownerOf(item), id: item.id };
}

/**
 * One item answers as itself and as a one-item `items` list: the seed and the API docs show
 * the bare item, the Python connector reads `items`.
 */
export function single<T extends object>(view: T): T & { items: T[] } {
  // Not `{ ...view, items: [view] }`: V8 misses its inline cache on the property written after
  // a spread, a trip into its runtime that cost getItem more than this whole copy.
  return Object.assign({}, view, { items: [view] });
}
