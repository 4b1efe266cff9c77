import { grantsOf } from './grants.js';
import { commonErrors } from './errors.js';
import type { PermissionChange, Principal, ServicePermissions } from './permissions.js';
import { allowedInput, parseInput, setPermissionsInput } from './validation.js';

/**
 * The three permission operations every service has: `allowed` (open to everyone),
 * `permissionEntries` and `changePermissions` (administrators, checked by the caller).
 */

/** One permission and the groups that hold it. */
export interface PermissionEntry {
  permission: string;
  groups: readonly string[];
}

/** Permission names to ask about: `permission` and `permissions`, each one name or a list. */
export interface AllowedQuery {
  permission?: string | readonly string[];
  permissions?: string | readonly string[];
}

/**
 * Whether the caller holds each permission asked about, by name. `isOwner` says whether
 * `sys:owner` counts: by default for any signed-in caller (a permission that depends on
 * ownership counts as held); the file store passes whether the caller owns the entry at hand.
 */
export async function allowedOf(
  permissions: ServicePermissions,
  principal: Principal,
  query: AllowedQuery,
  isOwner = principal.userId !== null,
): Promise<Map<string, boolean>> {
  const names = parseInput(allowedInput, query);
  const grants = await grantsOf(permissions, principal);
  const out = new Map<string, boolean>();
  for (const name of names) {
    const scope = grants.scope(name);
    out.set(name, scope === 'all' || (scope === 'own' && isOwner));
  }
  return out;
}

export async function permissionEntries(permissions: ServicePermissions): Promise<PermissionEntry[]> {
  const entries = await permissions.entries();
  return Object.entries(entries).map(([permission, groups]) => ({ permission, groups }));
}

/** Applies the changes (all or none: an unknown name refuses the whole call); the entries after them. */
export async function changePermissions(
  permissions: ServicePermissions,
  input: { permissions: PermissionChange | readonly PermissionChange[] },
): Promise<PermissionEntry[]> {
  const { permissions: changes } = parseInput(setPermissionsInput, input);
  const known = permissions.names();
  if (changes.some((p) => !known.includes(p.permission))) {
    throw commonErrors.unknown_permission({ fields: [['permission', 'unknown_permission']] });
  }
  await permissions.change(changes);
  return permissionEntries(permissions);
}
