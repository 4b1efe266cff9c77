/**
 * Vue bindings of the Roost connector (`@roost/client/vue`): composables for the signed-in
 * user, an item, a list with paging, and a file upload with progress. Each returns refs and
 * actions; actions never reject, failures show in `error`. Call them in `setup()`.
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
import type { Observable } from '../bindings/observable.js';
import { UploadController, type UploadState } from '../bindings/upload-controller.js';
import { sessionOf, type UserState } from '../bindings/user-session.js';

export type { ItemState, ListState, UploadState, UserState };

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
 */
export function useUser(users: Users) {
  const session = sessionOf(users);
  const { refs } = refsOf(() => session.state, session.state.get());
  session.start();
  return { ...refs, signin: session.signin, signout: session.signout, refresh: session.refresh };
}

/**
 * One item of a data store by key (a string, a ref or a getter: a new key loads its item).
 *
 * @example
 * const { item, save, remove } = useItem(data, 'greeting');
 */
export function useItem(store: DataStore, key: MaybeRefOrGetter<string>) {
  let controller = new ItemController(store, toValue(key));
  const { refs, follow } = refsOf(() => controller.state, controller.state.get());
  watch(
    () => toValue(key),
    (next) => {
      controller.dispose();
      controller = new ItemController(store, next);
      follow(controller.state);
      void controller.refresh();
    },
  );
  void controller.refresh();
  onScopeDispose(() => controller.dispose());
  return {
    ...refs,
    save: (value: string | number) => controller.save(value),
    remove: () => controller.remove(),
    refresh: () => controller.refresh(),
  };
}

/**
 * A data store's items a page at a time; `query.size` is the page size. A query given as a
 * ref or getter starts again at page 1 when it changes.
 *
 * @example
 * const { items, page, pages, next, previous } = useList(data, { size: 10 });
 */
export function useList(store: DataStore, query: MaybeRefOrGetter<Omit<ItemQuery, 'start'>> = {}) {
  let controller = new ListController(store, toValue(query));
  const { refs, follow } = refsOf(() => controller.state, controller.state.get());
  watch(
    () => JSON.stringify(toValue(query)),
    () => {
      controller.dispose();
      controller = new ListController(store, toValue(query));
      follow(controller.state);
      void controller.goTo(1);
    },
  );
  void controller.goTo(1);
  onScopeDispose(() => controller.dispose());
  return {
    ...refs,
    next: () => controller.next(),
    previous: () => controller.previous(),
    goTo: (page: number) => controller.goTo(page),
    refresh: () => controller.refresh(),
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
