import { storeRegistry, type StoreRegistry } from '../core/store-registry.js';
import type { Config } from '../core/config.js';
import { createDataStore, type DataStore, type DataStoreDeps } from './datastore-service.js';

export type { DataStore } from './datastore-service.js';
export type { Item } from './datastore-repo.js';
export { ITEM_EVENTS, isItemEvent, type ItemEvent } from './item-events.js';
export type { ItemPage, KeyPage } from './datastore-read-ops.js';
export type { WrittenItem } from './datastore-write-ops.js';
export type {
  ItemAddress,
  ItemRef,
  ItemWrite,
  ItemWrites,
  KeysQuery,
  ListQuery,
  OwnerChange,
} from './datastore-inputs.js';
export { dataStoreErrors } from './datastore-errors.js';
export { dataStorePermissionDefaults } from './datastore-permissions.js';

export interface DataStoresDeps extends Omit<DataStoreDeps, 'itemCacheMaxAgeMs'> {
  config: Config;
}

/** Every configured data store, by name. */
export type DataStores = StoreRegistry<DataStore>;

export function createDataStores(deps: DataStoresDeps): DataStores {
  // Items are kept in memory no longer than sessions (`users.sessionCacheSeconds`).
  const itemCacheMaxAgeMs = deps.config.users.sessionCacheSeconds * 1000;
  return storeRegistry(deps.config.dataStores, (name, options) =>
    createDataStore(name, options, { ...deps, itemCacheMaxAgeMs }),
  );
}
// The data stores' hook points (declaration merging into core/hooks.ts).
import './item-hooks.js';
