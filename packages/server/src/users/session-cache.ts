import type { Clock } from '../core/clock.js';
import type { User, UserRepo } from './user-repo.js';

/**
 * Every authenticated request looks up its session, and that lookup is most of what a simple
 * read costs. This keeps lookups for `ttlMs` in memory. Every write through the repository
 * that touches a user or a session drops that user's entries first, so in this process a
 * signout, disable, password change or profile update is seen at once; another process sees
 * it within `ttlMs` (0 turns the cache off). A session's expiry is checked on every hit.
 */
export function withSessionCache(repo: UserRepo, clock: Clock, ttlMs: number, maxEntries = 10_000): UserRepo {
  if (ttlMs <= 0) return repo;
  const entries = new Map<string, { found: { user: User; expires: number }; at: number }>();

  const forgetUser = (userId: string) => {
    for (const [hash, entry] of entries) if (entry.found.user.id === userId) entries.delete(hash);
  };

  return {
    ...repo,
    async sessionUser(tokenHash, now) {
      const hit = entries.get(tokenHash);
      if (hit && clock.now() - hit.at < ttlMs && hit.found.expires > now) return hit.found;
      const found = await repo.sessionUser(tokenHash, now);
      if (found) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(tokenHash, { found, at: clock.now() });
      } else {
        entries.delete(tokenHash);
      }
      return found;
    },
    async extendSession(tokenHash, expires) {
      entries.delete(tokenHash);
      await repo.extendSession(tokenHash, expires);
    },
    async deleteSession(tokenHash) {
      entries.delete(tokenHash);
      await repo.deleteSession(tokenHash);
    },
    async deleteSessions(userId, keep) {
      forgetUser(userId);
      await repo.deleteSessions(userId, keep);
    },
    async update(id, changes) {
      forgetUser(id);
      await repo.update(id, changes);
    },
    async remove(id) {
      forgetUser(id);
      return repo.remove(id);
    },
  };
}
