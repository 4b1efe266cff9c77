import { storePermissionDefaults, type PermissionMap, type StoreReadGroup } from '../core/permissions.js';

/** Default permission entries of one data store (the model of `storePermissionDefaults`). */
export function dataStorePermissionDefaults(read: StoreReadGroup): PermissionMap {
  return storePermissionDefaults(read, {
    reads: ['getItem', 'list', 'keys', 'getOwner'],
    changes: ['setItem', 'removeItem'],
  });
}
