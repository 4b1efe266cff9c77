import { keyAllows, outOfScope } from './api-keys.js';
import type { KeyAccess } from './api-keys.js';
import type { RoostError } from './errors.js';
import {
  ADMINS,
  EVERYONE,
  OWNER,
  grantedIn,
  holds,
  refusal,
  type PermissionMap,
  type Principal,
  type ServicePermissions,
} from './permissions.js';

/** Whatever a permission is checked on: an item, a file entry; `owner` is a user id. */
type Owned = { readonly owner: string | null };

/**
 * How far a caller holds a permission: on everything (`all`), on what it owns (`own`, through
 * `sys:owner`), or not at all. The one check of the data stores and the file stores.
 */
type Scope = 'all' | 'own' | 'none';

/** What one caller may do, read once per call: everything below answers without I/O. */
export interface Grants {
  scope(permission: string): Scope;
  /** The scope, or the refusal when there is none. */
  require(permission: string): Exclude<Scope, 'none'>;
  /** 401 when signing in could help, else 403. */
  refusal(permission: string): RoostError;
  /** May the caller do `permission` to this item or entry? */
  covers(permission: string, thing: Owned): boolean;
}

const covers = (scope: Scope, thing: Owned, principal: Principal) =>
  scope === 'all' || (scope === 'own' && thing.owner !== null && thing.owner === principal.userId);

/**
 * The caller's grants from the service's entries. Reading them once, before any transaction,
 * matters on SQLite: its one connection is held by a transaction, so a permission read inside
 * one would wait for itself.
 */
export function grantsOf(permissions: ServicePermissions, principal: Principal): Grants | Promise<Grants> {
  const entries = permissions.entries();
  return entries instanceof Promise
    ? entries.then((kept) => grantsIn(kept, principal, permissions))
    : grantsIn(entries, principal, permissions);
}

/**
 * The grants of a principal from entries already read: the live changes hub reads a store's
 * entries once per event and checks every subscriber from them (realtime/hub.ts). An API key's
 * grants are its scopes (core/api-keys.ts): they need the service's name and what each of its
 * operations is to a scope; without them (a program's own kind that does not pass them) a key
 * gets what everyone gets.
 */
export function grantsIn(entries: PermissionMap, principal: Principal, service: KeyedService = UNKEYED): Grants {
  return principal.key ? new KeyGrants(entries, principal, service) : new EntryGrants(entries, principal);
}

type KeyedService = Pick<ServicePermissions, 'service' | 'keyAccess'>;
const UNKEYED: KeyedService = Object.freeze({ service: '', keyAccess: null });

/** A class rather than closures: one of these is made for every request. */
class EntryGrants implements Grants {
  readonly #entries: PermissionMap;
  readonly #principal: Principal;

  constructor(entries: PermissionMap, principal: Principal) {
    this.#entries = entries;
    this.#principal = principal;
  }

  scope(permission: string): Scope {
    const granted = grantedIn(this.#entries, permission);
    if (holds(granted, this.#principal, false)) return 'all';
    return this.#principal.userId !== null && granted.includes(OWNER) ? 'own' : 'none';
  }

  refusal(permission: string): RoostError {
    return refusal(grantedIn(this.#entries, permission), this.#principal);
  }

  require(permission: string): Exclude<Scope, 'none'> {
    const held = this.scope(permission);
    if (held === 'none') throw this.refusal(permission);
    return held;
  }

  covers(permission: string, thing: Owned): boolean {
    return covers(this.scope(permission), thing, this.#principal);
  }
}

/**
 * An API key's grants: what everyone may do (an entry open to `sys:everyone`), and what its
 * scopes give on this store, on everything in it (a key owns nothing, so never `own`). Its groups
 * are none: no entry naming a group, `admins` included, counts for a key.
 */
class KeyGrants implements Grants {
  readonly #entries: PermissionMap;
  readonly #principal: Principal;
  readonly #service: KeyedService;

  constructor(entries: PermissionMap, principal: Principal, service: KeyedService) {
    this.#entries = entries;
    this.#principal = principal;
    this.#service = service;
  }

  scope(permission: string): Scope {
    if (grantedIn(this.#entries, permission).includes(EVERYONE)) return 'all';
    const key = this.#principal.key;
    const table = this.#service.keyAccess;
    const access: KeyAccess | undefined = table && Object.hasOwn(table, permission) ? table[permission] : undefined;
    return key && access && keyAllows(key, 'store', this.#service.service, access) ? 'all' : 'none';
  }

  refusal(permission: string): RoostError {
    return outOfScope(`${permission} on ${this.#service.service}`);
  }

  require(permission: string): Exclude<Scope, 'none'> {
    const held = this.scope(permission);
    if (held === 'none') throw this.refusal(permission);
    return held;
  }

  covers(permission: string): boolean {
    return this.scope(permission) === 'all';
  }
}

/**
 * The admin backend's one permission, held by `admins` and checked like every other. Fixed, not
 * stored with a service's entries: the user service's getPermissions answers the original's
 * entries only (http/protocol/user-protocol.ts), and no entry may lock every administrator out.
 */
const BACKEND: PermissionMap = Object.freeze({ administer: Object.freeze([ADMINS]) });

/** May the principal use the admin backend and read /metrics? (admin/admin-guard.ts, http/metrics.ts) */
export function administers(principal: Principal): boolean {
  return backendGrants(principal).scope('administer') === 'all';
}

/**
 * The backend permission as grants: what only administrators may call (a store's `usage` and
 * `peek`, adding and removing webhooks) asks `backendGrants(caller).require('administer')`, so a
 * caller that is not one gets the same 401 or 403 as any refusal (issue 38, item 7).
 */
export function backendGrants(principal: Principal): Grants {
  return new EntryGrants(BACKEND, principal);
}
