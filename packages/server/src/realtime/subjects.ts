import type { FileEvent, ItemEvent, Told } from '../core/events.js';
import type { PermissionMap } from '../core/permissions.js';
import type { DataStores, Item } from '../datastore/index.js';
import type { FileEntry, FileStores } from '../filestore/index.js';
import { programCaller, type User } from '../users/index.js';

/**
 * Whom the subjects are read as: an administrator of the program (`peek` is for administrators,
 * core/grants.ts `backendGrants`); each subscriber and webhook is checked against the entries after.
 */
const READER = programCaller('live changes').principal;

/** How subjects look on the wire: the original protocol's shapes (http/protocol/*), given by the transport. */
export interface SubjectViews {
  item(item: Item): object;
  entry(entry: FileEntry): object;
  user(user: User): object;
}

/** What an item or file event is about, read once: for every subscriber (hub.ts) and webhook (webhooks.ts). */
export interface Resolved {
  /** The subject as it is now, with its owner, and the event's data with it; null when it is gone. */
  now: { owner: string | null; data: string } | null;
  /** The owner it had, where the event says (a removal, a change of owner), and the data without the subject. */
  before: { owner: string | null; data: string } | null;
  /** The event's data without the subject. */
  head: string;
  /** The store's permission entries, read once for every subscriber. */
  entries: PermissionMap;
}

/**
 * Reads what an item or file event is about: the item (`peek`, from the item cache on SQLite)
 * or the entry as it is now, and the store's permission entries. Null for a store not
 * configured here (another process may have more).
 */
export function subjectReader(deps: { dataStores: DataStores; fileStores: FileStores; views: SubjectViews }) {
  const { views } = deps;
  return async function resolve(event: Told<ItemEvent | FileEvent>): Promise<Resolved | null> {
    if (event.kind.startsWith('item.')) {
      const e = event as Told<ItemEvent>;
      const store = deps.dataStores.get(e.store);
      if (!store) return null;
      const [entries, item] = await Promise.all([
        store.permissions.entries(),
        e.kind === 'item.removed' ? undefined : store.peek(READER, e.key),
      ]);
      const head = { event: e.kind, store: e.store, key: e.key, id: item?.id ?? e.id };
      const headText = JSON.stringify(head);
      return {
        entries,
        head: headText,
        now: item ? { owner: item.owner, data: JSON.stringify({ ...head, item: views.item(item) }) } : null,
        before: e.owner === undefined ? null : { owner: e.owner, data: headText },
      };
    }
    const e = event as Told<FileEvent>;
    const store = deps.fileStores.get(e.store);
    if (!store) return null;
    const at = e.kind === 'file.moved' ? e.to : e.path;
    const [entries, entry] = await Promise.all([
      store.permissions.entries(),
      e.kind === 'file.removed' ? null : store.peek(READER, at),
    ]);
    const head =
      e.kind === 'file.moved'
        ? { event: e.kind, store: e.store, path: e.path, to: e.to }
        : { event: e.kind, store: e.store, path: e.path };
    const headText = JSON.stringify(head);
    const owner = 'owner' in e ? e.owner : undefined;
    return {
      entries,
      head: headText,
      now: entry ? { owner: entry.owner, data: JSON.stringify({ ...head, entry: views.entry(entry) }) } : null,
      before: owner === undefined ? null : { owner, data: headText },
    };
  };
}
