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
export function single<T extends object>(item: Item, view: (item: Item) => T): T & { items: T[] } {
  // The view made twice, `items` added to one: objects of one shape, so V8's inline caches
  // hold. `{ ...view, items: [view] }` missed one on every call (a trip into V8's runtime that
  // cost more than the rest of getItem's answer); Object.assign costs a dozen times this.
  const answer = view(item) as T & { items: T[] };
  answer.items = [view(item)];
  return answer;
}
