import {
  storeKeyAccess,
  storePermissionDefaults,
  type PermissionMap,
  type StoreReadGroup,
} from '../core/permissions.js';

/** Operations that only look: they answer 404 for an entry the caller may not read. */
export const READ_OPERATIONS = ['getItem', 'read', 'list', 'getOwner'] as const;

const OPS = { reads: READ_OPERATIONS, changes: ['setItem', 'write', 'move', 'removeItem'] };

/**
 * Default permission entries of one file store (the model of `storePermissionDefaults`),
 * named after the operations, `read` and `write` included as the original's fixtures name them.
 * `sys:owner` on a change means the caller owns that file or directory.
 */
export function fileStorePermissionDefaults(read: StoreReadGroup): PermissionMap {
  return storePermissionDefaults(read, OPS);
}

/** What each operation is to an API key's scopes (core/api-keys.ts). */
export const FILESTORE_KEY_ACCESS = storeKeyAccess(OPS);
