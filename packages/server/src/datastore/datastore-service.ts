import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { DataStoreOptions } from '../core/config.js';
import { allowedAnswer, changePermissionsAnswer, permissionsAnswer } from '../core/permission-ops.js';
import { servicePermissions, type PermissionStore, type Principal } from '../core/permissions.js';
import type { Dialect } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { grantsOf } from './datastore-access.js';
import { assertBatchSize, withFailureBody, type DataStoreContext, type Operation } from './datastore-context.js';
import { createDataStoreInputs } from './datastore-inputs.js';
import { dataStorePermissionDefaults } from './datastore-permissions.js';
import { readOps } from './datastore-read-ops.js';
import { createDataStoreRepo } from './datastore-repo.js';
import { writeOps } from './datastore-write-ops.js';
import { ItemCache } from './item-cache.js';

const WRITES = new Set(['newItem', 'setItem', 'removeItem', 'setOwner']);

export interface DataStoreDeps {
  db: Kysely<Database>;
  /** On SQLite one process owns the database, so items may be cached in memory (see item-cache.ts). */
  dialect: Dialect;
  /** How long a cached item may show its owner's old name after a rename. */
  itemCacheMaxAgeMs: number;
  clock: Clock;
  permissionStore: PermissionStore;
}

/**
 * One data store: `run(operation, principal, input)` checks the operation's permission and
 * runs it, throwing a RoostError on every refusal. Its items and permission entries are its
 * own (both keyed by the store name), so stores never see each other's data.
 */
export function createDataStore(name: string, options: DataStoreOptions, deps: DataStoreDeps) {
  const permissions = servicePermissions(deps.permissionStore, name, dataStorePermissionDefaults(options.read));
  const ctx: DataStoreContext = {
    name,
    repo: createDataStoreRepo(
      deps.db,
      name,
      deps.dialect === 'sqlite' && options.itemCacheBytes > 0
        ? new ItemCache(options.itemCacheBytes, deps.itemCacheMaxAgeMs, deps.clock)
        : null,
    ),
    clock: deps.clock,
    permissions,
    inputs: createDataStoreInputs(options),
  };

  const all: Record<string, Operation> = {
    ...readOps(ctx),
    ...writeOps(ctx),
    async allowed({ grants, principal }, input) {
      grants.require('allowed');
      return allowedAnswer(permissions, principal, input);
    },
    async getPermissions({ grants }) {
      grants.require('getPermissions');
      return permissionsAnswer(permissions);
    },
    async setPermissions({ grants }, input) {
      grants.require('setPermissions');
      return changePermissionsAnswer(permissions, input);
    },
    async ping({ grants }) {
      grants.require('ping');
      return { result: 1 };
    },
  };
  // Every operation refuses over-long lists first (413); the writes answer each failure with
  // the original's `result: 0, success: []`.
  const operations: Record<string, Operation> = {};
  for (const [op, run] of Object.entries(all)) {
    const limited: Operation = (call, input) => {
      assertBatchSize(input, options.maxBatch);
      return run(call, input);
    };
    operations[op] = WRITES.has(op) ? withFailureBody(limited) : limited;
  }

  return {
    name,
    options,
    permissions,
    /** The input schemas, which also document the routes. */
    inputs: ctx.inputs,
    /** How many items the store holds (the admin dashboard; no permission check: callers are administrators). */
    usage: async () => ({ items: await ctx.repo.count() }),
    /** Run an operation by its wire name. */
    async run(op: string, principal: Principal, input: Record<string, unknown>): Promise<Record<string, unknown>> {
      const operation = operations[op];
      if (!operation) throw new TypeError(`no data store operation ${op}`);
      return operation({ principal, grants: await grantsOf(permissions, principal) }, input);
    },
  };
}

export type DataStore = ReturnType<typeof createDataStore>;
