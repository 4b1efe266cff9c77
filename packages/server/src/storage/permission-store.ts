import type { Kysely } from 'kysely';
import { applyChange, type PermissionChange, type PermissionMap, type PermissionStore } from '../core/permissions.js';
import type { Clock } from '../core/clock.js';
import type { ChangeFeed } from './change-feed.js';
import type { Database } from './schema.js';

/**
 * Permission entries in the `permissions` table over the service's defaults. Reads are served
 * from memory for `cacheMs`, because every request checks a permission; a change made by this
 * process is seen at once, one made by another process as its message on the change feed
 * arrives (PostgreSQL), else within `cacheMs`.
 */
export function createPermissionStore(
  db: Kysely<Database>,
  clock: Clock,
  cacheMs = 1000,
  feed: ChangeFeed | null = null,
): PermissionStore {
  // Per service: the stored rows, when they were read, and the entries merged over the defaults
  // (a service passes the same defaults object every time, so the merge is kept with the rows).
  type Kept = { at: number; rows: Record<string, string[]>; merged: WeakMap<PermissionMap, PermissionMap> };
  const cache = new Map<string, Kept>();

  // Bumped by every change: a read that started before one does not keep its (old) rows.
  let generation = 0;
  feed?.subscribe((change) => {
    generation++;
    if (change === null) cache.clear();
    else if (change.topic === 'permissions') cache.delete(change.key);
  });

  /** The kept rows of a service, while they may be used; else undefined. */
  function kept(service: string): Kept | undefined {
    const hit = cache.get(service);
    return hit && clock.now() - hit.at < cacheMs && (feed === null || feed.live) ? hit : undefined;
  }

  async function stored(service: string): Promise<Kept> {
    const started = generation;
    const rows = await db
      .selectFrom('permissions')
      .select(['permission', 'groups'])
      .where('service', '=', service)
      .execute();
    const map: Record<string, string[]> = {};
    for (const row of rows) map[row.permission] = JSON.parse(row.groups) as string[];
    const entry: Kept = { at: clock.now(), rows: map, merged: new WeakMap() };
    if (generation === started) cache.set(service, entry);
    return entry;
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
    const hit = kept(service);
    return hit ? mergedOver(hit, defaults) : stored(service).then((entry) => mergedOver(entry, defaults));
  }

  return {
    entries,
    async change(service, defaults, changes: PermissionChange[]) {
      await db.transaction().execute(async (trx) => {
        for (const change of changes) {
          const row = await trx
            .selectFrom('permissions')
            .select('groups')
            .where('service', '=', service)
            .where('permission', '=', change.permission)
            .executeTakeFirst();
          const current = row ? (JSON.parse(row.groups) as string[]) : [...(defaults[change.permission] ?? [])];
          const groups = JSON.stringify(applyChange(current, change));
          await trx
            .insertInto('permissions')
            .values({ service, permission: change.permission, groups })
            .onConflict((oc) => oc.columns(['service', 'permission']).doUpdateSet({ groups }))
            .execute();
        }
      });
      generation++;
      cache.delete(service);
      await feed?.publish('permissions', service);
      return entries(service, defaults);
    },
  };
}
