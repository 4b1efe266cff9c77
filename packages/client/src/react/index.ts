/**
 * React bindings of the Roost connector (`@roost/client/react`): hooks for the signed-in user,
 * an item, a list with paging, and a file upload with progress. Each hook takes a connector of
 * `@roost/client`; actions never reject, failures show in `error`.
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
import type { Observable } from '../bindings/observable.js';
import { UploadController, type UploadState } from '../bindings/upload-controller.js';
import { sessionOf, type UserState } from '../bindings/user-session.js';

export type { ItemState, ListState, UploadState, UserState };

function useObservable<T extends object>(observable: Observable<T>): T {
  return useSyncExternalStore(observable.subscribe, observable.get, observable.get);
}

/**
 * The signed-in user, shared by every component using the same `users` connector.
 *
 * @example
 * const { user, loading, error, signin, signout, refresh } = useUser(auth);
 */
export function useUser(users: Users) {
  const session = sessionOf(users);
  useEffect(() => session.start(), [session]);
  const state = useObservable(session.state);
  return { ...state, signin: session.signin, signout: session.signout, refresh: session.refresh };
}

/**
 * One item of a data store by key; `item` is `null` while there is none.
 *
 * @example
 * const { item, save, remove } = useItem(data, 'greeting');
 */
export function useItem(store: DataStore, key: string) {
  const controller = useMemo(() => new ItemController(store, key), [store, key]);
  useEffect(() => {
    void controller.refresh();
    return () => controller.dispose();
  }, [controller]);
  const state = useObservable(controller.state);
  return { ...state, save: controller.save, remove: controller.remove, refresh: controller.refresh };
}

/**
 * A data store's items a page at a time; `query.size` is the page size.
 *
 * @example
 * const { items, page, pages, next, previous } = useList(data, { size: 10, sort: 'timestamp', order: '>' });
 */
export function useList(store: DataStore, query: Omit<ItemQuery, 'start'> = {}) {
  // A query written inline is a new object each render: `queryKey` changes only when its
  // contents do, and stands for `query` among the memo's dependencies.
  const queryKey = JSON.stringify(query);
  // biome-ignore lint/correctness/useExhaustiveDependencies: queryKey stands for query (above)
  const controller = useMemo(() => new ListController(store, query), [store, queryKey]);
  useEffect(() => {
    void controller.goTo(1);
    return () => controller.dispose();
  }, [controller]);
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
