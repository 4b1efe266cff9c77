import { ADMINS, AUTHENTICATED, EVERYONE, OWNER, type PermissionMap } from '../core/permissions.js';

/**
 * Default permission entries of one data store, named after the operations. Reads go to the
 * store's configured `read` group; anyone signed in may create; only the item's owner (and
 * administrators) may replace or remove it; ownership and permissions are for administrators.
 * The map is made once per store: the permission store caches merged entries per defaults object.
 */
export function dataStorePermissionDefaults(read: typeof EVERYONE | typeof AUTHENTICATED): PermissionMap {
  return Object.freeze({
    getItem: [read, ADMINS],
    list: [read, ADMINS],
    keys: [read, ADMINS],
    getOwner: [read, ADMINS],
    newItem: [AUTHENTICATED],
    setItem: [OWNER, ADMINS],
    removeItem: [OWNER, ADMINS],
    setOwner: [ADMINS],
    getPermissions: [ADMINS],
    setPermissions: [ADMINS],
    allowed: [EVERYONE],
    ping: [EVERYONE],
  });
}
