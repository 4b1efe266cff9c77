import type { PermissionEntry } from '../../core/permission-ops.js';

/** The original protocol's answers of the permission operations every service has (core/permission-ops.ts). */

/**
 * `{result: <all held>, <name>: bool, ...}`. A name like `__proto__` counts in `result` but
 * cannot be a member of the answer (assigning it sets nothing).
 */
export function allowedBody(held: ReadonlyMap<string, boolean>) {
  const out: Record<string, unknown> = {};
  for (const [name, granted] of held) out[name] = granted;
  return { result: [...held.values()].every((granted) => granted), ...out };
}

export const permissionsBody = (entries: readonly PermissionEntry[]) => ({ result: true, permissions: entries });
