import type { Kysely } from 'kysely';
import { Cache, type CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import type { SettingsStore, StoredSetting } from '../core/runtime-settings.js';
import { writeAudit } from './audit-store.js';
import type { Database } from './schema.js';

/** A stored value as JSON, or its text when it is not JSON. */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The runtime settings in the `settings` table. Reads are served from memory for `cacheMs`
 * (core/cache.ts; operations such as sign-in read the identity policy on every call): a change
 * made by this process is seen at once, one made by another process as its message on the change
 * feed arrives (PostgreSQL). Concurrent reads of a stale cache share one query.
 */
export function createSettingsStore(
  db: Kysely<Database>,
  clock: Clock,
  cacheMs = 1000,
  feed: CacheFeed | null = null,
): SettingsStore {
  const cache = new Cache<ReadonlyMap<string, StoredSetting>>({
    clock,
    ttlMs: cacheMs,
    maxSize: 1,
    feed,
    topic: 'settings',
  });
  const ALL = 'all';

  async function load(): Promise<ReadonlyMap<string, StoredSetting>> {
    const rows = await db.selectFrom('settings').select(['key', 'value', 'changed', 'changed_by']).execute();
    const map = new Map<string, StoredSetting>();
    for (const row of rows) {
      let value: unknown;
      try {
        value = JSON.parse(row.value);
      } catch {
        continue; // not JSON: as if unset (runtime-settings ignores invalid values the same way)
      }
      map.set(row.key, {
        value,
        changed: row.changed === null ? null : Number(row.changed),
        changedBy: row.changed_by,
      });
    }
    return map;
  }

  return {
    read: async () => cache.read(ALL, load),
    async write(changes, by) {
      const now = clock.now();
      await cache.around(
        () => cache.forget(ALL),
        () =>
          db.transaction().execute(async (trx) => {
            // The audit log's line commits with the change (core/audit.ts): the values before and after.
            const keys = changes.map((c) => c.key);
            const stored = keys.length
              ? await trx.selectFrom('settings').select(['key', 'value']).where('key', 'in', keys).execute()
              : [];
            const before = Object.fromEntries(stored.map((r) => [r.key, parsedOrText(r.value)]));
            const after = Object.fromEntries(changes.map((c) => [c.key, c.value ?? null]));
            await writeAudit(trx, now, { action: 'settings.change', target: 'settings', before, after });
            for (const change of changes) {
              if (change.value === undefined) {
                await trx.deleteFrom('settings').where('key', '=', change.key).execute();
                continue;
              }
              const row = { value: JSON.stringify(change.value), changed: now, changed_by: by };
              await trx
                .insertInto('settings')
                .values({ key: change.key, ...row })
                .onConflict((oc) => oc.column('key').doUpdateSet(row))
                .execute();
            }
          }),
      );
      await cache.publish(ALL);
    },
  };
}
