import { commonErrors } from './errors.js';
import type { Principal, ServicePermissions } from './permissions.js';
import { allowedInput, parseInput, setPermissionsInput } from './validation.js';

/**
 * The three permission operations every service has, in one wire form: `allowed` (open to
 * everyone), `getPermissions` and `setPermissions` (administrators, checked by the caller).
 */

/**
 * `{result: <all held>, <name>: bool, ...}`. `isOwner` says whether `sys:owner` counts: by
 * default for any signed-in caller (a permission that depends on ownership counts as held);
 * the file store passes whether the caller owns the entry at hand.
 */
export async function allowedAnswer(
  permissions: ServicePermissions,
  principal: Principal,
  input: Record<string, unknown>,
  isOwner = principal.userId !== null,
) {
  const names = parseInput(allowedInput, input);
  const out: Record<string, unknown> = {};
  for (const name of names) out[name] = await permissions.allows(name, principal, isOwner);
  return { result: names.every((n) => out[n] === true), ...out };
}

export async function permissionsAnswer(permissions: ServicePermissions) {
  const entries = await permissions.entries();
  return { result: true, permissions: Object.entries(entries).map(([permission, groups]) => ({ permission, groups })) };
}

/** Applies the changes (all or none: an unknown name refuses the whole call) and answers the new entries. */
export async function changePermissionsAnswer(permissions: ServicePermissions, input: Record<string, unknown>) {
  const { permissions: changes } = parseInput(setPermissionsInput, input);
  const known = permissions.names();
  if (changes.some((p) => !known.includes(p.permission))) {
    throw commonErrors.unknown_permission({ fields: [['permission', 'unknown_permission']] });
  }
  await permissions.change(changes);
  return permissionsAnswer(permissions);
}
