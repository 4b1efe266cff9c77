import type { AuditLog } from '../core/audit.js';
import type { User, UserChanges, UserRepo } from './user-repo.js';

/** What signing in writes of an account: its bookkeeping, not a change the audit log keeps. */
const BOOKKEEPING = new Set<keyof UserChanges>(['activity', 'failedSignins', 'lockedUntil', 'lockouts']);

/** An account as the log shows it: what a person changes, the password's hash left out. */
const shown = (user: Partial<User>) => {
  const { passwordHash, activity: _a, failedSignins: _f, lockedUntil: _l, lockouts: _o, ...rest } = user;
  return passwordHash === undefined ? rest : { ...rest, password: 'changed' };
};

/**
 * Every change of an account in the audit log (core/audit.ts; issue 42, item 5): made, changed
 * (before and after, of the fields changed), removed, each after its commit, by the actor of the
 * request or program under way. Wraps the repository as `withAccountEvents` does
 * (account-events.ts), so every writer (an operation, the admin pages, the CLI) is recorded.
 */
export function withAccountAudit(repo: UserRepo, audit: AuditLog | null): UserRepo {
  if (!audit) return repo;
  return {
    ...repo,
    async insert(user, alongside) {
      const made = await repo.insert(user, alongside);
      await audit.record({ action: 'account.create', target: made.name, after: shown(made) });
      return made;
    },
    async update(id, changes) {
      const keys = Object.keys(changes) as Array<keyof UserChanges>;
      if (keys.every((key) => BOOKKEEPING.has(key))) return repo.update(id, changes);
      const before = await repo.byId(id);
      await repo.update(id, changes);
      const was: Partial<User> = {};
      for (const key of keys) if (before && !BOOKKEEPING.has(key)) Object.assign(was, { [key]: before[key] });
      await audit.record({
        action: 'account.update',
        target: before?.name ?? id,
        before: shown(was),
        after: shown(changes),
      });
    },
    async remove(id) {
      const before = await repo.byId(id);
      const removed = await repo.remove(id);
      if (removed)
        await audit.record({ action: 'account.remove', target: before?.name ?? id, before: before && shown(before) });
      return removed;
    },
  };
}
