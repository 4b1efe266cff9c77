import { Cache, type CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import type { EventBus } from '../core/events.js';
import type { UserDirectory } from '../core/user-directory.js';
import type { UserRepo } from './user-repo.js';

/** The account events after which a kept name may be wrong (a created one: an id once unknown). */
const NAMING = ['account.created', 'account.changed', 'account.removed'] as const;

/**
 * The user service's side of core/user-directory.ts. Names are kept in memory (core/cache.ts),
 * since every item and file answer shows its owner's: an account event (core/events.ts; of this
 * process at once, of the others through the change feed) forgets the account's name, and a
 * read that started before the change does not put the old one back. While the feed is down
 * names come from the database.
 */
export function createUserDirectory(deps: {
  repo: Pick<UserRepo, 'idOf' | 'namesOf'>;
  clock: Clock;
  events: EventBus;
  feed: CacheFeed | null;
  ttlMs: number;
}): UserDirectory {
  const { repo } = deps;
  const names = new Cache<string | null>({ clock: deps.clock, ttlMs: deps.ttlMs, maxSize: 10_000, feed: deps.feed });
  deps.events.on(NAMING, (event) => names.forget(event.userId));
  const loadName = async (id: string) => (await repo.namesOf([id])).get(id) ?? null;

  return {
    idOf: (identity, options) => repo.idOf(identity, options?.email ?? false),
    nameOf: (id) => names.read(id, loadName),
    async namesOf(ids) {
      const out = new Map<string, string>();
      const missing: string[] = [];
      for (const id of new Set(ids)) {
        const known = names.get(id);
        if (known === undefined) missing.push(id);
        else if (known !== null) out.set(id, known);
      }
      if (missing.length === 0) return out;
      const started = names.generation;
      const found = await repo.namesOf(missing);
      for (const id of missing) {
        const name = found.get(id) ?? null;
        names.keep(id, name, started);
        if (name !== null) out.set(id, name);
      }
      return out;
    },
  };
}
