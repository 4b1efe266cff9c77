import type { EventFamily, Subject } from '../../core/event-family.js';
import type { Told } from '../../core/events.js';
import { ITEM_EVENTS, isItemEvent, type DataStores, type Item } from '../../datastore/index.js';
import { admitToStore, READER, storeSubject } from './store-subject.js';
import { invalidTopic, STORE_NAME } from './topic-text.js';

/** At most this many keys in one topic: a subscription is a line, not a document. */
const MAX_KEYS = 100;

/** What an item topic asks for: a store's items, all, some keys, or a key prefix. */
export interface ItemTopic {
  store: string;
  keys?: ReadonlySet<string>;
  prefix?: string;
}

/**
 * An item topic's text, or a `validation_failure` saying what is wrong with it:
 *
 *   items/<store>                 every item
 *   items/<store>?keys=a,b        these keys
 *   items/<store>?prefix=notes/   keys starting with it
 *
 * @example
 * parseItemTopic('items/notes?prefix=todo/'); // { store: 'notes', prefix: 'todo/' }
 */
export function parseItemTopic(text: string): ItemTopic {
  const at = text.indexOf('?');
  const [head, query] = at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
  const [, store = '', ...rest] = head.split('/');
  if (!STORE_NAME.test(store)) throw invalidTopic(text, 'names no store (items/<store>)');
  if (rest.length > 0) throw invalidTopic(text, 'has a path: an item topic narrows with ?keys= or ?prefix=');
  if (query === undefined) return { store };
  const params = new URLSearchParams(query);
  const names = [...new Set(params.keys())];
  if (names.length !== 1 || params.getAll(names[0] ?? '').length !== 1)
    throw invalidTopic(text, 'may narrow by one of keys= or prefix=, once');
  const keys = params.get('keys');
  if (keys !== null) {
    const list = keys.split(',').filter(Boolean);
    if (list.length === 0 || list.length > MAX_KEYS) throw invalidTopic(text, `must name 1 to ${MAX_KEYS} keys`);
    return { store, keys: new Set(list) };
  }
  const prefix = params.get('prefix');
  if (prefix === '') throw invalidTopic(text, 'has an empty prefix: leave ?prefix= out to hear every item');
  if (prefix !== null) return { store, prefix };
  throw invalidTopic(text, 'may narrow by keys= or prefix= only');
}

/** Whether an event is about an item the topic asks for. */
export function itemMatches(topic: ItemTopic, event: Told): boolean {
  if (!isItemEvent(event) || event.store !== topic.store) return false;
  if (topic.keys) return topic.keys.has(event.key);
  return topic.prefix === undefined || event.key.startsWith(topic.prefix);
}

/**
 * The data stores' events (datastore/item-events.ts) for live changes and webhooks: topics
 * `items/<store>...`, filed by store; the subject is the item as it is now (`peek`, from the
 * item cache on SQLite) in the original protocol's shape (`view`), or the owner it had.
 */
export function itemFamily(dataStores: DataStores, view: (item: Item) => object): EventFamily {
  return {
    name: 'items',
    kinds: ITEM_EVENTS,
    hasService: (service) => dataStores.get(service) !== undefined,
    services: () => dataStores.names,
    serviceOf: (event) => (isItemEvent(event) ? event.store : null),
    topic(text) {
      const topic = parseItemTopic(text);
      return {
        async admit(principal) {
          await admitToStore(dataStores.get(topic.store), principal);
          return { place: `items/${topic.store}`, matches: (event) => itemMatches(topic, event) };
        },
      };
    },
    placeOf: (event) => (isItemEvent(event) ? `items/${event.store}` : null),
    async read(event): Promise<Subject | null> {
      if (!isItemEvent(event)) return null;
      // A store not configured here (another process may have more): nothing to tell.
      const store = dataStores.get(event.store);
      if (!store) return null;
      const [entries, item] = await Promise.all([
        store.permissions.entries(),
        event.kind === 'item.removed' ? undefined : store.peek(READER, event.key),
      ]);
      const head = { event: event.kind, store: event.store, key: event.key, id: item?.id ?? event.id };
      const headText = JSON.stringify(head);
      return storeSubject({
        entries,
        permissions: store.permissions,
        head: headText,
        now: item ? { owner: item.owner, data: JSON.stringify({ ...head, item: view(item) }) } : null,
        before: event.owner === undefined ? null : { owner: event.owner, data: headText },
      });
    },
  };
}
