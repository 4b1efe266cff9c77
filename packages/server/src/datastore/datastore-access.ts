import { commonErrors, type RoostError } from '../core/errors.js';
import { NOONE, OWNER, holds, type PermissionMap, type Principal, type ServicePermissions } from '../core/permissions.js';
import type { Item } from './datastore-repo.js';

/**
 * How far a caller holds a permission: on every item (`all`), on the items it owns (`own`,
 * through `sys:owner`), or not at all.
 */
export type Scope = 'all' | 'own' | 'none';

/** What one caller may do, read once per call: everything below answers without I/O. */
export interface Grants {
  scope(permission: string): Scope;
  /** The scope, or the refusal when there is none. */
  require(permission: string): Exclude<Scope, 'none'>;
  /** 401 when signing in could help, else 403. */
  refusal(permission: string): RoostError;
  /** May the caller do `permission` to this item? */
  covers(permission: string, item: Pick<Item, 'owner'>): boolean;
}

export const covers = (scope: Scope, item: Pick<Item, 'owner'>, principal: Principal) =>
  scope === 'all' || (scope === 'own' && item.owner !== null && item.owner === principal.userId);

/**
 * The caller's grants from the store's entries. Reading them once, before any transaction,
 * matters on SQLite: its one connection is held by a transaction, so a permission read inside
 * one would wait for itself.
 */
export async function grantsOf(permissions: ServicePermissions, principal: Principal): Promise<Grants> {
  const entries: PermissionMap = await permissions.entries();
  const scope = (permission: string): Scope => {
    const granted = entries[permission] ?? [];
    if (holds(granted, principal, false)) return 'all';
    return principal.userId !== null && granted.includes(OWNER) ? 'own' : 'none';
  };
  const refusal = (permission: string): RoostError => {
    const granted = entries[permission] ?? [];
    const signingInCouldHelp = principal.userId === null && granted.some((g) => g !== NOONE);
    return signingInCouldHelp ? commonErrors.not_signed_in() : commonErrors.not_allowed();
  };
  return {
    scope,
    refusal,
    require(permission) {
      const held = scope(permission);
      if (held === 'none') throw refusal(permission);
      return held;
    },
    covers: (permission, item) => covers(scope(permission), item, principal),
  };
}
