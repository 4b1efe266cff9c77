import type { Config } from '../core/config.js';
import { createDataStore, type DataStore, type DataStoreDeps } from './datastore-service.js';

export type { DataStore } from './datastore-service.js';
export type { Item } from './datastore-repo.js';
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
export interface DataStores {
  readonly names: readonly string[];
  get(name: string): DataStore | undefined;
}

export function createDataStores(deps: DataStoresDeps): DataStores {
  const stores = new Map(
    Object.entries(deps.config.dataStores).map(([name, options]) => [
      name,
      createDataStore(name, options, { ...deps, itemCacheMaxAgeMs: deps.config.users.sessionCacheSeconds * 1000 }),
    ]),
  );
  return { names: [...stores.keys()], get: (name) => stores.get(name) };
}
