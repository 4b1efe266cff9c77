import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { SettingsStore, StoredSetting } from '../core/runtime-settings.js';
import type { Database } from './schema.js';

/**
 * The runtime settings in the `settings` table. Reads are served from memory for `cacheMs`
 * (operations such as sign-in read the identity policy on every call): a change made by this
 * process is seen at once, one made by another process on the same database within `cacheMs`.
 * Concurrent reads of a stale cache share one query.
 */
export function createSettingsStore(db: Kysely<Database>, clock: Clock, cacheMs = 1000): SettingsStore {
  let cached: { at: number; rows: ReadonlyMap<string, StoredSetting> } | undefined;
  let loading: Promise<ReadonlyMap<string, StoredSetting>> | undefined;
  // Bumped by every write: a read that started before it must not cache the old rows.
  let generation = 0;

  async function load(): Promise<ReadonlyMap<string, StoredSetting>> {
    const at = clock.now();
    const started = generation;
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
    if (started === generation) cached = { at, rows: map };
    return map;
  }

  return {
    read() {
      if (cached && clock.now() - cached.at < cacheMs) return Promise.resolve(cached.rows);
      if (!loading) {
        const current = load().finally(() => {
          if (loading === current) loading = undefined;
        });
        loading = current;
      }
      return loading;
    },
    async write(changes, by) {
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
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
      });
      generation++;
      cached = undefined;
      loading = undefined;
    },
  };
}
