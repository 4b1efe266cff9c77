import { commonErrors, type RoostError } from '../core/errors.js';
import { NOONE, OWNER, holds, type Principal, type ServicePermissions } from '../core/permissions.js';
import type { Item } from './datastore-repo.js';

/**
 * How far a caller holds a permission: on every item (`all`), on the items it owns (`own`,
 * through `sys:owner`), or not at all.
 */
export type Scope = 'all' | 'own' | 'none';

export interface Access {
  scope(permission: string, principal: Principal): Promise<Scope>;
  /** The scope, or the refusal when there is none: 401 when signing in could help, else 403. */
  require(permission: string, principal: Principal): Promise<Exclude<Scope, 'none'>>;
  refusal(permission: string, principal: Principal): Promise<RoostError>;
}

export const covers = (scope: Scope, item: Pick<Item, 'owner'>, principal: Principal) =>
  scope === 'all' || (scope === 'own' && item.owner !== null && item.owner === principal.userId);

export function createAccess(permissions: ServicePermissions): Access {
  async function scope(permission: string, principal: Principal): Promise<Scope> {
    const granted = await permissions.granted(permission);
    if (holds(granted, principal, false)) return 'all';
    return principal.userId !== null && granted.includes(OWNER) ? 'own' : 'none';
  }

  async function refusal(permission: string, principal: Principal): Promise<RoostError> {
    const granted = await permissions.granted(permission);
    const signingInCouldHelp = principal.userId === null && granted.some((g) => g !== NOONE);
    return signingInCouldHelp ? commonErrors.not_signed_in() : commonErrors.not_allowed();
  }

  return {
    scope,
    refusal,
    async require(permission, principal) {
      const held = await scope(permission, principal);
      if (held === 'none') throw await refusal(permission, principal);
      return held;
    },
  };
}
