import { NO_HOOKS, type HookRunner } from '../core/hooks.js';
import type { Kysely } from 'kysely';
import type { CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import type { DataStoreOptions } from '../core/config.js';
import type { EventBus } from '../core/events.js';
import {
  allowedOf,
  changePermissions,
  permissionEntries,
  type AllowedQuery,
  type PermissionEntry,
} from '../core/permission-ops.js';
import {
  servicePermissions,
  type PermissionChange,
  type PermissionStore,
  type Principal,
  type ServicePermissions,
} from '../core/permissions.js';
import type { Dialect } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { backendGrants, grantsOf } from '../core/grants.js';
import { assertBatchSize, type Call, type DataStoreContext } from './datastore-context.js';
import {
  createDataStoreInputs,
  type DataStoreInputs,
  type ItemAddress,
  type ItemWrites,
  type KeysQuery,
  type ListQuery,
  type OwnerChange,
} from './datastore-inputs.js';
import { DATASTORE_KEY_ACCESS, dataStorePermissionDefaults } from './datastore-permissions.js';
import { readOps, type ItemPage, type KeyPage } from './datastore-read-ops.js';
import { createDataStoreRepo, type Item } from './datastore-repo.js';
import { writeOps, type WrittenItem } from './datastore-write-ops.js';
import { createItemCache, createPageMarks } from './item-cache.js';
import type { UserDirectory } from '../core/user-directory.js';

export interface DataStoreDeps {
  db: Kysely<Database>;
  /** Where reads that may be a little stale run (storage/replica-reads.ts); `db` when absent. */
  reads?: Kysely<Database>;
  /** On SQLite one process owns the database, so items may be cached in memory (see item-cache.ts). */
  dialect: Dialect;
  /** How long an item is kept in memory at most (see item-cache.ts). */
  itemCacheMaxAgeMs: number;
  /** Ids of names and names of ids, from the user service (core/user-directory.ts). */
  users: UserDirectory;
  clock: Clock;
  permissionStore: PermissionStore;
  /** Told of every committed change to an item (core/events.ts). */
  events: EventBus;
  /** What the other processes on the database changed (storage/change-feed.ts); null on SQLite. */
  changes: CacheFeed | null;
  /** The team's hooks on items (item-hooks.ts); none by default. */
  hooks?: HookRunner;
}

/**
 * One data store. Every operation takes the caller, checks its permission, and throws a
 * RoostError on every refusal (codes in datastore-errors.ts and core/errors.ts); inputs are
 * checked by the store's schemas (datastore-inputs.ts), lists longer than `maxBatch` first
 * (413). Its items and permission entries are its own (both keyed by the store name), so
 * stores never see each other's data. The original protocol's answers are made from these
 * results in http/protocol/datastore-protocol.ts.
 */
export interface DataStore {
  readonly name: string;
  readonly options: DataStoreOptions;
  readonly permissions: ServicePermissions;
  /** The input schemas, which also document the routes. */
  readonly inputs: DataStoreInputs;
  /** How many items the store holds (the admin dashboard): for administrators (`backendGrants`, core/grants.ts). */
  usage(caller: Principal): Promise<{ items: number }>;
  /**
   * The item of this key as stored, whoever owns it: for administrators only (`backendGrants`), the
   * live changes hub (realtime/families/item-family.ts), which reads a changed item once and checks each
   * subscriber's grants itself.
   */
  peek(caller: Principal, key: string): Promise<Item | undefined>;
  /** The items named that the caller may read, in the order named; absent and unreadable ones are left out. */
  get(caller: Principal, address: ItemAddress): Promise<Item[]>;
  /** As `get`, under the `getOwner` permission. */
  getOwners(caller: Principal, address: ItemAddress): Promise<Item[]>;
  list(caller: Principal, query: ListQuery): Promise<ItemPage>;
  keys(caller: Principal, query: KeysQuery): Promise<KeyPage>;
  /** Creates all the items or none (409 `item_exists`); the stored items. */
  create(caller: Principal, items: ItemWrites): Promise<Item[]>;
  /** Creates or replaces all the items, or none. */
  set(caller: Principal, items: ItemWrites): Promise<WrittenItem[]>;
  /** Removes the items named; the labels (keys or ids, as named) of those removed. */
  remove(caller: Principal, address: ItemAddress): Promise<Array<string | number>>;
  setOwner(caller: Principal, change: OwnerChange): Promise<WrittenItem[]>;
  /** Whether the caller holds each permission asked about (everyone may ask, `allowed`). */
  allowed(caller: Principal, query: AllowedQuery): Promise<Map<string, boolean>>;
  permissionEntries(caller: Principal): Promise<PermissionEntry[]>;
  changePermissions(
    caller: Principal,
    change: { permissions: PermissionChange | readonly PermissionChange[] },
  ): Promise<PermissionEntry[]>;
  /** Refuses only a caller without the `ping` permission. */
  ping(caller: Principal): Promise<void>;
}

export function createDataStore(name: string, options: DataStoreOptions, deps: DataStoreDeps): DataStore {
  const permissions = servicePermissions(
    deps.permissionStore,
    name,
    dataStorePermissionDefaults(options.read),
    DATASTORE_KEY_ACCESS,
  );
  // One process owns a SQLite database: what it keeps in memory, every write of it updates.
  const inMemory = deps.dialect === 'sqlite' && options.itemCacheBytes > 0;
  // Page marks also on PostgreSQL, where another process's write arrives as its event. This
  // process's own events drop them too: a page read while a write's transaction was still open
  // (after its statement dropped them, before its commit) may have kept a mark of before.
  const marks = (deps.dialect === 'sqlite' ? inMemory : deps.changes !== null)
    ? createPageMarks(deps.clock, deps.changes)
    : null;
  if (marks) {
    deps.events.on(['item.created', 'item.removed', 'item.owner_changed'], (event) => {
      if (event.store === name) marks.forgetAll();
    });
    deps.events.onGap(() => marks.forgetAll());
  }
  const repo = createDataStoreRepo(
    deps.db,
    name,
    deps.users,
    inMemory ? createItemCache(options.itemCacheBytes, deps.itemCacheMaxAgeMs, deps.clock) : null,
    marks,
  );
  const ctx: DataStoreContext = {
    name,
    repo,
    // On replicas: no cache and no page marks, which a stale page would leave behind for every caller.
    readRepo: deps.reads && deps.reads !== deps.db ? createDataStoreRepo(deps.reads, name, deps.users) : repo,
    users: deps.users,
    clock: deps.clock,
    events: deps.events,
    permissions,
    inputs: createDataStoreInputs(options),
    hooks: deps.hooks ?? NO_HOOKS,
  };
  const reads = readOps(ctx);
  const writes = writeOps(ctx);

  /** Refuses a caller without `permission`. */
  async function requireGrant(caller: Principal, permission: string): Promise<void> {
    (await grantsOf(permissions, caller)).require(permission);
  }
  /**
   * An operation as callers call it: an over-long list is refused first (413), then the
   * caller's grants are read once for the whole operation (see `grantsOf`).
   */
  const checked =
    <I extends object, R>(operation: (call: Call, input: I) => Promise<R>) =>
    async (caller: Principal, input: I): Promise<R> => {
      assertBatchSize(input, options.maxBatch);
      return operation({ principal: caller, grants: await grantsOf(permissions, caller) }, input);
    };

  return {
    name,
    options,
    permissions,
    inputs: ctx.inputs,
    usage: async (caller) => {
      backendGrants(caller).require('administer');
      return { items: await ctx.repo.count() };
    },
    peek: async (caller, key) => {
      backendGrants(caller).require('administer');
      return (await ctx.repo.byKeys([key]))[0];
    },
    get: checked(reads.get),
    getOwners: checked(reads.getOwners),
    list: checked(reads.list),
    keys: checked(reads.keys),
    create: checked(writes.create),
    set: checked(writes.set),
    remove: checked(writes.remove),
    setOwner: checked(writes.setOwner),
    async allowed(caller, query) {
      await requireGrant(caller, 'allowed');
      return allowedOf(permissions, caller, query);
    },
    async permissionEntries(caller) {
      await requireGrant(caller, 'getPermissions');
      return permissionEntries(permissions);
    },
    async changePermissions(caller, change) {
      await requireGrant(caller, 'setPermissions');
      return changePermissions(permissions, change);
    },
    ping: (caller) => requireGrant(caller, 'ping'),
  };
}
