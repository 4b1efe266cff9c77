import {
  storeKeyAccess,
  storePermissionDefaults,
  type PermissionMap,
  type StoreReadGroup,
} from '../core/permissions.js';

const OPS = { reads: ['getItem', 'list', 'keys', 'getOwner'], changes: ['setItem', 'removeItem'] };

/** Default permission entries of one data store (the model of `storePermissionDefaults`). */
export function dataStorePermissionDefaults(read: StoreReadGroup): PermissionMap {
  return storePermissionDefaults(read, OPS);
}

/** What each operation is to an API key's scopes (core/api-keys.ts). */
export const DATASTORE_KEY_ACCESS = storeKeyAccess(OPS);
