import { Cache, type CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import { processStats } from '../core/process-stats.js';
import type { FoundSession, UserRepo } from './user-repo.js';

/**
 * Every authenticated request looks up its session, and that lookup is most of what a simple
 * read costs. This keeps lookups for `ttlMs` in memory (core/cache.ts). Every write through the
 * repository that touches a user or a session drops that user's entries before and after it,
 * so in this process a signout, disable, password change or profile update is seen at once.
 * With a change feed (PostgreSQL), the write is then published and the other processes drop
 * their entries as the message arrives (milliseconds); while the feed is down they answer from
 * the database only. Without one, another process sees it within `ttlMs` (0 turns the cache
 * off). A session's expiry is checked on every hit.
 */
export function withSessionCache(
  repo: UserRepo,
  clock: Clock,
  ttlMs: number,
  feed: CacheFeed | null = null,
  maxEntries = 10_000,
): UserRepo {
  if (ttlMs <= 0) return repo;
  const sessions = new Cache<FoundSession>({
    clock,
    ttlMs,
    maxSize: maxEntries,
    stats: processStats.caches.session,
    feed,
    topic: 'session',
  });
  const forgetUser = (userId: string) => sessions.forgetWhere((found) => found.user.id === userId);
  sessions.follow('user', forgetUser);

  return {
    ...repo,
    async sessionUser(tokenHash, now) {
      const hit = sessions.get(tokenHash);
      if (hit && hit.expires > now) return hit;
      const started = sessions.generation;
      const found = await repo.sessionUser(tokenHash, now);
      // Nothing is kept of a token that names no session: a flood of wrong tokens fills nothing.
      if (found) sessions.keep(tokenHash, found, started);
      return found;
    },
    async touchSession(tokenHash, lastUsed, expires) {
      // Others may keep the older times: a session's last use is coarse anyway, and when the
      // older expiry passes they look the session up again.
      sessions.forget(tokenHash);
      await repo.touchSession(tokenHash, lastUsed, expires);
    },
    async deleteSessionById(userId, id) {
      const deleted = await sessions.around(
        () => forgetUser(userId),
        () => repo.deleteSessionById(userId, id),
      );
      await sessions.publish(userId, 'user');
      return deleted;
    },
    async deleteSession(tokenHash) {
      await sessions.around(
        () => sessions.forget(tokenHash),
        () => repo.deleteSession(tokenHash),
      );
      await sessions.publish(tokenHash, 'session');
    },
    async deleteSessions(userId, keep) {
      await sessions.around(
        () => forgetUser(userId),
        () => repo.deleteSessions(userId, keep),
      );
      await sessions.publish(userId, 'user');
    },
    async update(id, changes) {
      await sessions.around(
        () => forgetUser(id),
        () => repo.update(id, changes),
      );
      await sessions.publish(id, 'user');
    },
    async remove(id) {
      const removed = await sessions.around(
        () => forgetUser(id),
        () => repo.remove(id),
      );
      await sessions.publish(id, 'user');
      return removed;
    },
  };
}
