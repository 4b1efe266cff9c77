import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import type { PermissionStore } from '../core/permissions.js';
import type { Database } from '../storage/schema.js';

export interface DataStoreDeps {
  db: Kysely<Database>;
  clock: Clock;
  permissionStore: PermissionStore;
  config: Config;
}

/** Every configured data store, by name. The data store issue fills in the operations. */
export interface DataStores {
  readonly names: readonly string[];
}

export function createDataStores(deps: DataStoreDeps): DataStores {
  return { names: Object.keys(deps.config.dataStores) };
}
