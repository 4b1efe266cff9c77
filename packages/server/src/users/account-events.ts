import { kindIn, type EventBus } from '../core/events.js';
import type { UserChanges, UserRepo } from './user-repo.js';

/**
 * The events of the user service (core/events.ts), declared in its own folder: one per
 * committed change of an account.
 */
export const ACCOUNT_EVENTS = [
  'account.created',
  'account.changed',
  'account.disabled',
  'account.removed',
  'account.signed_out',
] as const;

type AccountEvents = { [K in (typeof ACCOUNT_EVENTS)[number]]: { kind: K; userId: string } };

declare module '../core/events.js' {
  interface RoostEvents extends AccountEvents {}
}

export type AccountEvent = AccountEvents[keyof AccountEvents];

/** Whether an event is an account's (a type guard: core/events.ts `kindIn`). */
export const isAccountEvent = kindIn(ACCOUNT_EVENTS);

/** What signing in writes of an account: its bookkeeping, not a change of the account. */
const SIGNIN_BOOKKEEPING = new Set<keyof UserChanges>(['activity', 'failedSignins', 'lockedUntil', 'lockouts']);

/**
 * The account events of core/events.ts, told once each write of the repository has committed
 * (and the session cache has forgotten what it changed: this wraps the cached repository).
 * Whoever writes an account (an operation, the admin pages, the CLI) tells through here.
 */
export function withAccountEvents(repo: UserRepo, events: EventBus): UserRepo {
  return {
    ...repo,
    async insert(user, alongside) {
      const made = await repo.insert(user, alongside);
      events.emit({ kind: 'account.created', userId: made.id });
      return made;
    },
    async update(id, changes) {
      await repo.update(id, changes);
      const keys = Object.keys(changes) as Array<keyof UserChanges>;
      if (keys.every((key) => SIGNIN_BOOKKEEPING.has(key))) return;
      events.emit({ kind: changes.state === 'disabled' ? 'account.disabled' : 'account.changed', userId: id });
    },
    async remove(id) {
      const removed = await repo.remove(id);
      if (removed) events.emit({ kind: 'account.removed', userId: id });
      return removed;
    },
  };
}
