import type { Kysely } from 'kysely';
import { applyChange, type PermissionChange, type PermissionMap, type PermissionStore } from '../core/permissions.js';
import { Cache, type CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import { writeAudit } from './audit-store.js';
import type { Database } from './schema.js';

/**
 * Permission entries in the `permissions` table over the service's defaults. Reads are served
 * from memory for `cacheMs` (core/cache.ts), because every request checks a permission; a change made by this
 * process is seen at once, one made by another process as its message on the change feed
 * arrives (PostgreSQL), else within `cacheMs`.
 */
export function createPermissionStore(
  db: Kysely<Database>,
  clock: Clock,
  cacheMs = 1000,
  feed: CacheFeed | null = null,
): PermissionStore {
  // Per service: the stored rows, and the entries merged over the defaults (a service passes the
  // same defaults object every time, so the merge is kept with the rows).
  type Kept = { rows: Record<string, string[]>; merged: Map<PermissionMap, PermissionMap> };
  const services = new Cache<Kept>({ clock, ttlMs: cacheMs, maxSize: 1000, feed, topic: 'permissions' });

  async function stored(service: string): Promise<Kept> {
    const rows = await db
      .selectFrom('permissions')
      .select(['permission', 'groups'])
      .where('service', '=', service)
      .execute();
    const map: Record<string, string[]> = {};
    for (const row of rows) map[row.permission] = JSON.parse(row.groups) as string[];
    return { rows: map, merged: new Map() };
  }

  function mergedOver(entry: Kept, defaults: PermissionMap): PermissionMap {
    let merged = entry.merged.get(defaults);
    if (!merged) {
      const out: Record<string, readonly string[]> = {};
      for (const name of Object.keys(defaults)) out[name] = entry.rows[name] ?? defaults[name] ?? [];
      merged = Object.freeze(out);
      entry.merged.set(defaults, merged);
    }
    return merged;
  }

  /** Kept entries answer at once, without a promise: every request asks for them. */
  function entries(service: string, defaults: PermissionMap): PermissionMap | Promise<PermissionMap> {
    const kept = services.read(service, stored);
    return kept instanceof Promise ? kept.then((entry) => mergedOver(entry, defaults)) : mergedOver(kept, defaults);
  }

  return {
    entries,
    async change(service, defaults, changes: PermissionChange[]) {
      await services.around(
        () => services.forget(service),
        () =>
          db.transaction().execute(async (trx) => {
            const before: Record<string, string[]> = {};
            const after: Record<string, string[]> = {};
            for (const change of changes) {
              const row = await trx
                .selectFrom('permissions')
                .select('groups')
                .where('service', '=', service)
                .where('permission', '=', change.permission)
                .executeTakeFirst();
              const current = row ? (JSON.parse(row.groups) as string[]) : [...(defaults[change.permission] ?? [])];
              before[change.permission] ??= current;
              const next = applyChange(current, change);
              after[change.permission] = next;
              const groups = JSON.stringify(next);
              await trx
                .insertInto('permissions')
                .values({ service, permission: change.permission, groups })
                .onConflict((oc) => oc.columns(['service', 'permission']).doUpdateSet({ groups }))
                .execute();
            }
            // The audit log's line commits with the change (core/audit.ts).
            await writeAudit(trx, clock.now(), { action: 'permissions.change', target: service, before, after });
          }),
      );
      await services.publish(service);
      return entries(service, defaults);
    },
  };
}
