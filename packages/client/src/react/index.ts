/**
 * React bindings of the Roost connector (`@roost/client/react`): hooks for the signed-in user,
 * an item, a list with paging, a directory, a file upload with progress, and a collection's
 * records and one record; the item, list and directory follow live changes when given a
 * `realtime()` connector (`{ live }`), the records when given one or `live: true`. Each hook
 * takes a connector of `@roost/client`; actions never reject, failures show in `error`.
 *
 * @example
 * const auth = users();
 * function Me() {
 *   const { user, signin, signout } = useUser(auth);
 *   return user ? <button onClick={signout}>Sign out {user.name}</button> : <SignInForm onSubmit={signin} />;
 * }
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import type { DataStore } from '../datastore.js';
import type { ItemQuery } from '../datastore-types.js';
import type { FileStore } from '../filestore.js';
import type { Users } from '../users.js';
import { ItemController, type ItemState } from '../bindings/item-controller.js';
import { ListController, type ListState } from '../bindings/list-controller.js';
import { DirectoryController, type DirectoryState } from '../bindings/directory-controller.js';
import type { PageController } from '../bindings/page-controller.js';
import type { ListQuery } from '../filestore-types.js';
import type { Realtime } from '../realtime.js';
import type { Observable } from '../bindings/observable.js';
import { UploadController, type UploadState } from '../bindings/upload-controller.js';
import { sessionOf, type UserState } from '../bindings/user-session.js';
import type { Collection } from '../collection.js';
import type { RecordBase } from '../collection-types.js';
import { RecordsController, type RecordsQuery, type RecordsState } from '../bindings/records-controller.js';
import { RecordController, type RecordState } from '../bindings/record-controller.js';

export type { DirectoryState, ItemState, ListState, RecordState, RecordsState, UploadState, UserState };

/** Follow live changes: a `realtime()` connector, shared by every view that follows them. */
export interface LiveOption {
  live?: Realtime;
}

function useObservable<T extends object>(observable: Observable<T>): T {
  return useSyncExternalStore(observable.subscribe, observable.get, observable.get);
}

/**
 * The signed-in user, shared by every component using the same `users` connector.
 *
 * @example
 * const { user, loading, error, signin, signout, refresh } = useUser(auth);
 * // An account with a second factor: `signin` leaves `challenge` set; `secondStep({ code })` completes it.
 * const { challenge, secondStep } = useUser(auth);
 */
export function useUser(users: Users) {
  const session = sessionOf(users);
  useEffect(() => session.start(), [session]);
  const state = useObservable(session.state);
  return {
    ...state,
    signin: session.signin,
    secondStep: session.secondStep,
    signinWithProvider: session.signinWithProvider,
    signinWithPasskey: session.signinWithPasskey,
    secondStepWithPasskey: session.secondStepWithPasskey,
    enrol: session.enrol,
    signout: session.signout,
    refresh: session.refresh,
  };
}

/**
 * One item of a data store by key; `item` is `null` while there is none. With `{ live }` it
 * follows the item's changes as they happen.
 *
 * @example
 * const { item, save, remove } = useItem(data, 'greeting', { live });
 */
export function useItem(store: DataStore, key: string, options: LiveOption = {}) {
  const controller = useMemo(() => new ItemController(store, key), [store, key]);
  const { live } = options;
  useEffect(() => {
    void controller.refresh();
    const stop = live ? controller.watch(live) : undefined;
    return () => {
      stop?.();
      controller.dispose();
    };
  }, [controller, live]);
  const state = useObservable(controller.state);
  return { ...state, save: controller.save, remove: controller.remove, refresh: controller.refresh };
}

/**
 * A data store's items a page at a time; `query.size` is the page size. With `{ live }` the page
 * is shown again when the store changes.
 *
 * @example
 * const { items, page, pages, next, previous } = useList(data, { size: 10, sort: 'timestamp', order: '>' }, { live });
 */
export function useList(store: DataStore, query: Omit<ItemQuery, 'start'> = {}, options: LiveOption = {}) {
  // A query written inline is a new object each render: `queryKey` changes only when its
  // contents do, and stands for `query` among the memo's dependencies.
  const queryKey = JSON.stringify(query);
  // biome-ignore lint/correctness/useExhaustiveDependencies: queryKey stands for query (above)
  const controller = useMemo(() => new ListController(store, query), [store, queryKey]);
  return usePages(controller, options.live);
}

/**
 * A file store directory's entries a page at a time (`''` is the root); `query.size` is the page
 * size. With `{ live }` the page is shown again when the directory changes.
 *
 * @example
 * const { items, page, pages, next } = useDirectory(files, 'photos', { size: 20 }, { live });
 */
export function useDirectory(
  files: FileStore,
  path: string,
  query: Omit<ListQuery, 'start'> = {},
  options: LiveOption = {},
) {
  const queryKey = JSON.stringify(query);
  // biome-ignore lint/correctness/useExhaustiveDependencies: queryKey stands for query (as in useList)
  const controller = useMemo(() => new DirectoryController(files, path, query), [files, path, queryKey]);
  return usePages(controller, options.live);
}

/** A paged view: loads the first page, follows `live` when given, and lets go when the view does. */
function usePages<T>(
  controller: PageController<T> & { watch(live: Realtime): () => void },
  live: Realtime | undefined,
) {
  useEffect(() => {
    void controller.goTo(1);
    const stop = live ? controller.watch(live) : undefined;
    return () => {
      stop?.();
      controller.dispose();
    };
  }, [controller, live]);
  const state = useObservable(controller.state);
  return {
    ...state,
    next: controller.next,
    previous: controller.previous,
    goTo: controller.goTo,
    refresh: controller.refresh,
  };
}

/**
 * Follow a collection's changes: a `realtime()` connector to share, or `true` for the stream of
 * the collection's own connector.
 */
export interface RecordsLiveOption {
  live?: Realtime | boolean;
}

const streamOf = (live: Realtime | boolean | undefined) => (live === true ? undefined : live || null);

/** What useRecords and useRecord run: a controller of bindings/ that watches a stream and loads. */
interface RecordsRunner {
  watch(live: Realtime | undefined): () => void;
  refresh(): Promise<void>;
  dispose(): void;
}

/** Runs `controller` while the component shows it: its live changes (unless `stream` is null), its first load. */
function useRunning(controller: RecordsRunner, stream: Realtime | undefined | null): void {
  useEffect(() => {
    const stop = stream === null ? undefined : controller.watch(stream);
    void controller.refresh();
    return () => {
      stop?.();
      controller.dispose();
    };
  }, [controller, stream]);
}

/**
 * A collection's records, a page at first and more on `loadMore()`, with the query's filter,
 * sort, page size and total. With `{ live }` each change is applied as it happens: a record
 * that enters, changes, leaves or goes is shown so, asking nothing again.
 *
 * @example
 * const posts = db.collection('posts');
 * const { items, hasMore, loadMore } = useRecords(posts, { filter: 'status = "open"', sort: '-priority', live });
 */
export function useRecords<R extends RecordBase>(
  collection: Collection<R>,
  options: RecordsQuery<R> & RecordsLiveOption = {},
) {
  const { live, ...query } = options;
  // A query written inline is a new object each render: its text stands for it (as in useList).
  const queryKey = JSON.stringify(query);
  // biome-ignore lint/correctness/useExhaustiveDependencies: queryKey stands for query (above)
  const controller = useMemo(() => new RecordsController(collection, query), [collection, queryKey]);
  useRunning(controller, streamOf(live));
  const state = useObservable(controller.state);
  return { ...state, loadMore: controller.loadMore, refresh: controller.refresh };
}

/**
 * One record of a collection by id; `record` is `null` while there is none (or none the caller
 * may see). With `{ live }` it follows the record's changes as they happen.
 *
 * @example
 * const { record, update, remove } = useRecord(db.collection('posts'), id, { live: true });
 */
export function useRecord<R extends RecordBase>(
  collection: Collection<R>,
  id: string,
  options: RecordsLiveOption = {},
) {
  const controller = useMemo(() => new RecordController(collection, id), [collection, id]);
  useRunning(controller, streamOf(options.live));
  const state = useObservable(controller.state);
  return { ...state, update: controller.update, remove: controller.remove, refresh: controller.refresh };
}

/**
 * Uploads into a file store with their progress (`XMLHttpRequest` in the browser).
 *
 * @example
 * const { upload, progress, fraction, uploading, error } = useUpload(files);
 * <input type="file" onChange={(e) => upload(`photos/${e.target.files[0].name}`, e.target.files[0])} />
 */
export function useUpload(files: FileStore) {
  const controller = useMemo(() => new UploadController(files), [files]);
  useEffect(() => () => controller.dispose(), [controller]);
  const state = useObservable(controller.state);
  return { ...state, upload: controller.upload, abort: controller.abort };
}
