/**
 * Vue bindings of the Roost connector (`@roost/client/vue`): composables for the signed-in
 * user, an item, a list with paging, a directory, a file upload with progress, and a
 * collection's records and one record; the item, list and directory follow live changes when
 * given a `realtime()` connector (`{ live }`), the records when given one or `live: true`. Each
 * returns refs and actions; actions never reject, failures show in `error`. Call them in `setup()`.
 *
 * @example
 * const auth = users();
 * const { user, signin, signout } = useUser(auth);
 */
import { onScopeDispose, shallowRef, toValue, watch, type MaybeRefOrGetter, type ShallowRef } from 'vue';
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
import type { RecordBase, RecordPatch } from '../collection-types.js';
import { RecordsController, type RecordsQuery, type RecordsState } from '../bindings/records-controller.js';
import { RecordController, type RecordState } from '../bindings/record-controller.js';

export type { DirectoryState, ItemState, ListState, RecordState, RecordsState, UploadState, UserState };

/** Follow live changes: a `realtime()` connector, shared by every view that follows them. */
export interface LiveOption {
  live?: Realtime;
}

/**
 * A controller for as long as the scope lives: made again by `remake`, following `live` when
 * given (`true`: the records' controllers follow their collection's own stream).
 */
function controlled<C extends { dispose(): void; watch(live: Realtime | undefined): () => void }>(
  make: () => C,
  live: Realtime | true | undefined,
  start: (controller: C) => void,
) {
  // `true` reaches only the records' controllers (RecordsLiveOption), whose `watch` takes undefined.
  const follow = (c: C) => (live === undefined ? undefined : c.watch(live === true ? undefined : live));
  let controller = make();
  let stop = follow(controller);
  start(controller);
  const remake = () => {
    stop?.();
    controller.dispose();
    controller = make();
    stop = follow(controller);
    start(controller);
    return controller;
  };
  onScopeDispose(() => {
    stop?.();
    controller.dispose();
  });
  return { current: () => controller, remake };
}

/** A ref per field of the state, each a readonly view kept in step with `observable`. */
type Refs<T> = { readonly [K in keyof T]: Readonly<ShallowRef<T[K]>> };

/** Mirror an observable into refs for as long as the calling scope lives. */
function refsOf<T extends object>(
  observable: () => Observable<T>,
  initial: T,
): { refs: Refs<T>; follow(next: Observable<T>): void } {
  const refs = Object.fromEntries(
    Object.entries(initial).map(([key, value]) => [key, shallowRef(value)]),
  ) as unknown as Record<keyof T, ShallowRef<unknown>>;
  let stop: (() => void) | undefined;
  const copy = (value: T) => {
    for (const key of Object.keys(refs) as (keyof T)[]) refs[key].value = value[key];
  };
  const follow = (next: Observable<T>) => {
    stop?.();
    copy(next.get());
    stop = next.subscribe(() => copy(next.get()));
  };
  follow(observable());
  onScopeDispose(() => stop?.());
  return { refs: refs as unknown as Refs<T>, follow };
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
  const { refs } = refsOf(() => session.state, session.state.get());
  session.start();
  return {
    ...refs,
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
 * One item of a data store by key (a string, a ref or a getter: a new key loads its item). With
 * `{ live }` it follows the item's changes as they happen.
 *
 * @example
 * const { item, save, remove } = useItem(data, 'greeting', { live });
 */
export function useItem(store: DataStore, key: MaybeRefOrGetter<string>, options: LiveOption = {}) {
  const item = controlled(
    () => new ItemController(store, toValue(key)),
    options.live,
    (c) => void c.refresh(),
  );
  const { refs, follow } = refsOf(() => item.current().state, item.current().state.get());
  watch(
    () => toValue(key),
    () => follow(item.remake().state),
  );
  return {
    ...refs,
    save: (value: string | number) => item.current().save(value),
    remove: () => item.current().remove(),
    refresh: () => item.current().refresh(),
  };
}

/**
 * A data store's items a page at a time; `query.size` is the page size. A query given as a
 * ref or getter starts again at page 1 when it changes. With `{ live }` the page is shown again
 * when the store changes.
 *
 * @example
 * const { items, page, pages, next, previous } = useList(data, { size: 10 });
 */
export function useList(
  store: DataStore,
  query: MaybeRefOrGetter<Omit<ItemQuery, 'start'>> = {},
  options: LiveOption = {},
) {
  return pages(
    () => new ListController(store, toValue(query)),
    () => JSON.stringify(toValue(query)),
    options,
  );
}

/**
 * A file store directory's entries a page at a time (`''` is the root; the path and the query
 * may be refs or getters); `query.size` is the page size. With `{ live }` the page is shown
 * again when the directory changes.
 *
 * @example
 * const { items, page, pages, next } = useDirectory(files, 'photos', { size: 20 }, { live });
 */
export function useDirectory(
  files: FileStore,
  path: MaybeRefOrGetter<string>,
  query: MaybeRefOrGetter<Omit<ListQuery, 'start'>> = {},
  options: LiveOption = {},
) {
  return pages(
    () => new DirectoryController(files, toValue(path), toValue(query)),
    () => JSON.stringify([toValue(path), toValue(query)]),
    options,
  );
}

/** The paged views' refs and actions, made again (from page 1) when `key` changes. */
function pages<T>(
  make: () => PageController<T> & { watch(live: Realtime): () => void },
  key: () => string,
  options: LiveOption,
) {
  const paged = controlled(make, options.live, (c) => void c.goTo(1));
  const { refs, follow } = refsOf(() => paged.current().state, paged.current().state.get());
  watch(key, () => follow(paged.remake().state));
  return {
    ...refs,
    next: () => paged.current().next(),
    previous: () => paged.current().previous(),
    goTo: (page: number) => paged.current().goTo(page),
    refresh: () => paged.current().refresh(),
  };
}

/**
 * Follow a collection's changes: a `realtime()` connector to share, or `true` for the stream of
 * the collection's own connector.
 */
export interface RecordsLiveOption {
  live?: Realtime | boolean;
}

const liveOf = (live: Realtime | boolean | undefined) => (live === false ? undefined : live);

/**
 * A collection's records, a page at first and more on `loadMore()`; the query (a ref or getter
 * too) starts again when it changes. With `{ live }` each change is applied as it happens: a
 * record that enters, changes, leaves or goes is shown so, asking nothing again.
 *
 * @example
 * const { items, hasMore, loadMore } = useRecords(db.collection('posts'), { sort: '-priority' }, { live: true });
 */
export function useRecords<R extends RecordBase>(
  collection: Collection<R>,
  query: MaybeRefOrGetter<RecordsQuery<R>> = {},
  options: RecordsLiveOption = {},
) {
  const records = controlled(
    () => new RecordsController(collection, toValue(query)),
    liveOf(options.live),
    (c) => void c.refresh(),
  );
  const initial: RecordsState<R> = records.current().state.get();
  const { refs, follow } = refsOf(() => records.current().state, initial);
  watch(
    () => JSON.stringify(toValue(query)),
    () => follow(records.remake().state),
  );
  return {
    ...refs,
    loadMore: () => records.current().loadMore(),
    refresh: () => records.current().refresh(),
  };
}

/**
 * One record of a collection by id (a string, a ref or a getter: a new id loads its record);
 * `record` is `null` while there is none. With `{ live }` it follows the record's changes.
 *
 * @example
 * const { record, update, remove } = useRecord(db.collection('posts'), () => route.params.id, { live: true });
 */
export function useRecord<R extends RecordBase>(
  collection: Collection<R>,
  id: MaybeRefOrGetter<string>,
  options: RecordsLiveOption = {},
) {
  const one = controlled(
    () => new RecordController(collection, toValue(id)),
    liveOf(options.live),
    (c) => void c.refresh(),
  );
  const initial: RecordState<R> = one.current().state.get();
  const { refs, follow } = refsOf(() => one.current().state, initial);
  watch(
    () => toValue(id),
    () => follow(one.remake().state),
  );
  return {
    ...refs,
    update: (patch: RecordPatch<R>) => one.current().update(patch),
    remove: () => one.current().remove(),
    refresh: () => one.current().refresh(),
  };
}

/**
 * Uploads into a file store with their progress (`XMLHttpRequest` in the browser).
 *
 * @example
 * const { upload, progress, fraction, uploading, error } = useUpload(files);
 */
export function useUpload(files: FileStore) {
  const controller = new UploadController(files);
  const { refs } = refsOf(() => controller.state, controller.state.get());
  onScopeDispose(() => controller.dispose());
  return { ...refs, upload: controller.upload, abort: controller.abort };
}
