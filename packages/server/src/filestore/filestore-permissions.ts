import { ADMINS, AUTHENTICATED, EVERYONE, OWNER, type PermissionMap } from '../core/permissions.js';

/** Operations that only look: they answer 404 for an entry the caller may not read. */
export const READ_OPERATIONS = ['getItem', 'read', 'list', 'getOwner'] as const;

/**
 * Default permission entries of one file store, one per operation and named after it (the
 * original's fixtures use the same names, `read` and `write` included). Reads go to the store's
 * configured `read` group; anyone signed in may create, and the creator owns what it created;
 * changes are for the owner (`sys:owner`: the caller owns that file or directory) and
 * administrators; ownership and permissions for administrators only.
 */
export function fileStorePermissionDefaults(read: string): PermissionMap {
  return Object.freeze({
    getItem: [read, ADMINS],
    read: [read, ADMINS],
    list: [read, ADMINS],
    getOwner: [read, ADMINS],
    newItem: [AUTHENTICATED],
    setItem: [OWNER, ADMINS],
    write: [OWNER, ADMINS],
    move: [OWNER, ADMINS],
    removeItem: [OWNER, ADMINS],
    setOwner: [ADMINS],
    getPermissions: [ADMINS],
    setPermissions: [ADMINS],
    allowed: [EVERYONE],
    ping: [EVERYONE],
  });
}
