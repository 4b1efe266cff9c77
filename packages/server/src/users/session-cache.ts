import { processStats } from '../core/process-stats.js';
import type { Clock } from '../core/clock.js';
import type { ChangeFeed } from '../storage/change-feed.js';
import type { User, UserRepo } from './user-repo.js';

/**
 * Every authenticated request looks up its session, and that lookup is most of what a simple
 * read costs. This keeps lookups for `ttlMs` in memory. Every write through the repository
 * that touches a user or a session drops that user's entries first, so in this process a
 * signout, disable, password change or profile update is seen at once. With a change feed
 * (PostgreSQL), the write is then published and the other processes drop their entries as the
 * message arrives (milliseconds); while the feed is down they answer from the database only.
 * Without one, another process sees it within `ttlMs` (0 turns the cache off). A session's
 * expiry is checked on every hit.
 *
 * A lookup that started before a change must not put its (old) result back afterwards: every
 * change bumps `generation`, and a lookup is kept only if the generation it started with is
 * still current.
 */
export function withSessionCache(
  repo: UserRepo,
  clock: Clock,
  ttlMs: number,
  feed: ChangeFeed | null = null,
  maxEntries = 10_000,
): UserRepo {
  if (ttlMs <= 0) return repo;
  const entries = new Map<string, { found: { user: User; expires: number }; at: number }>();
  let generation = 0;

  const forgetUser = (userId: string) => {
    generation++;
    for (const [hash, entry] of entries) if (entry.found.user.id === userId) entries.delete(hash);
  };
  const forgetSession = (tokenHash: string) => {
    generation++;
    entries.delete(tokenHash);
  };
  /**
   * Forget before the write and again once it has committed. The first forget stops answers
   * from the cache at once; the second drops what a lookup running during the write read from
   * the database (the old row) and cached, and its generation bump stops lookups still in flight
   * from caching it. Without the second, a busy token kept working for a cache lifetime after
   * its revocation had answered (test/http/session-revocation.test.ts).
   */
  async function forgetAround<T>(forget: () => void, write: () => Promise<T>): Promise<T> {
    forget();
    try {
      return await write();
    } finally {
      forget();
    }
  }
  /** Tell the other processes, once the change is committed. */
  const publish = (topic: 'user' | 'session', key: string) => feed?.publish(topic, key);

  feed?.subscribe((change) => {
    if (change === null) {
      generation++;
      entries.clear();
    } else if (change.topic === 'user') forgetUser(change.key);
    else if (change.topic === 'session') forgetSession(change.key);
  });

  return {
    ...repo,
    async sessionUser(tokenHash, now) {
      const usable = feed === null || feed.live;
      const hit = entries.get(tokenHash);
      if (usable && hit && clock.now() - hit.at < ttlMs && hit.found.expires > now) {
        processStats.caches.session.hits++;
        return hit.found;
      }
      processStats.caches.session.misses++;
      const started = generation;
      const found = await repo.sessionUser(tokenHash, now);
      if (found && usable && generation === started) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(tokenHash, { found, at: clock.now() });
      } else if (!found) {
        entries.delete(tokenHash);
      }
      return found;
    },
    async extendSession(tokenHash, expires) {
      // Others may keep the older expiry: when it passes they look the session up again.
      entries.delete(tokenHash);
      await repo.extendSession(tokenHash, expires);
    },
    async deleteSession(tokenHash) {
      await forgetAround(
        () => forgetSession(tokenHash),
        () => repo.deleteSession(tokenHash),
      );
      await publish('session', tokenHash);
    },
    async deleteSessions(userId, keep) {
      await forgetAround(
        () => forgetUser(userId),
        () => repo.deleteSessions(userId, keep),
      );
      await publish('user', userId);
    },
    async update(id, changes) {
      await forgetAround(
        () => forgetUser(id),
        () => repo.update(id, changes),
      );
      await publish('user', id);
    },
    async remove(id) {
      const removed = await forgetAround(
        () => forgetUser(id),
        () => repo.remove(id),
      );
      await publish('user', id);
      return removed;
    },
  };
}
