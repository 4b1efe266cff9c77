/**
 * The services as one caller sees them (issue 40, items 3 and 5): each operation bound to the
 * caller, so an extension's code asks exactly what its caller may ask, checked by the service's
 * own permissions (core/grants.ts, collections/collection-rules.ts). Seeing more needs the
 * system's view (`asSystem` of a route's context, extend/routes.ts), a program caller that
 * administers (users/user-context.ts `programCaller`).
 */
import type { Collections } from '../collections/index.js';
import type { Mail } from '../core/mailer.js';
import type { Principal } from '../core/permissions.js';
import type { DataStore, DataStores } from '../datastore/index.js';
import type { FileStore, FileStores } from '../filestore/index.js';
import { programCaller, type Caller, type UserService } from '../users/index.js';

/**
 * The operations of `T` whose first parameter is exactly a `C` (a `Principal`, or the user
 * service's `Caller`), with that parameter already given. The others (a store's `holdsFile`,
 * the collections' `peek`, which read whatever the rules say) are left out.
 */
export type BoundTo<T, C> = {
  // biome-ignore lint/suspicious/noExplicitAny: any parameters after the first, as each operation declares them
  [K in keyof T as T[K] extends (first: infer P, ...rest: any[]) => unknown
    ? [P] extends [C]
      ? [C] extends [P]
        ? K
        : never
      : never
    : never]: T[K] extends (first: C, ...rest: infer A) => infer R ? (...rest: A) => R : never;
};

/** What an extension's handler asks the services through: as its caller, or as the system. */
export interface ServicesAs {
  /** The collections' records and definitions (collections/collections-service.ts). */
  readonly collections: BoundTo<Collections, Principal>;
  /** The users (users/user-service-type.ts): the caller's own account, or any as the system. */
  readonly users: BoundTo<UserService, Caller>;
  /** A configured data store; an unknown name is a programming error (a 500 with the name in the log). */
  dataStore(name: string): BoundTo<DataStore, Principal>;
  /** A configured file store, as `dataStore`. */
  fileStore(name: string): BoundTo<FileStore, Principal>;
  /** Mail, queued and delivered after the answer (mail/mail-queue.ts), the same for every caller. */
  readonly mail: { send(mail: Mail): Promise<void> };
}

export interface ServicesAsDeps {
  users: UserService;
  dataStores: DataStores;
  fileStores: FileStores;
  collections: Collections;
  mail: { send(mail: Mail): Promise<void> };
}

/** The caller the system's view asks as: a program that administers (userId and name `system`). */
export const SYSTEM_CALLER: Caller = programCaller('system');

/**
 * Each member of `service` that is a function, called with `first` before its own arguments.
 * A Proxy rather than a list of names: every operation a service adds later is bound too, and
 * `BoundTo` leaves out, by type, what does not take the caller first.
 */
function bound<T extends object, C>(service: T, first: C): BoundTo<T, C> {
  return new Proxy(service, {
    get(target, key) {
      const member: unknown = Reflect.get(target, key);
      if (typeof member !== 'function') return undefined;
      return (...rest: unknown[]) => member.call(target, first, ...rest);
    },
  }) as unknown as BoundTo<T, C>;
}

function storeOf<S>(registry: { get(name: string): S | undefined }, kind: string, name: string): S {
  const store = registry.get(name);
  if (!store) throw new Error(`there is no ${kind} named "${name}" in the configuration`);
  return store;
}

/** The services bound to `caller` (the user service gets the whole caller, the others its principal). */
export function servicesAs(deps: ServicesAsDeps, caller: Caller): ServicesAs {
  const principal = caller.principal;
  // Bound when first asked: a hook runs on every write it is registered for, and most ask nothing
  // (bench/suite-hooks.ts measures what a hook that does nothing costs a write).
  let collections: BoundTo<Collections, Principal> | undefined;
  let users: BoundTo<UserService, Caller> | undefined;
  return {
    get collections() {
      collections ??= bound(deps.collections, principal);
      return collections;
    },
    get users() {
      users ??= bound(deps.users, caller);
      return users;
    },
    dataStore: (name) => bound(storeOf(deps.dataStores, 'data store', name), principal),
    fileStore: (name) => bound(storeOf(deps.fileStores, 'file store', name), principal),
    mail: deps.mail,
  };
}
