import type { EventFamily, Subject } from '../../core/event-family.js';
import { commonErrors } from '../../core/errors.js';
import { ACCOUNT_EVENTS, isAccountEvent, type User } from '../../users/index.js';
import { invalidTopic } from './topic-text.js';

/**
 * The user service's events (users/account-events.ts) for live changes and webhooks: the topic
 * `account`, the subscriber's own account (signed in only), filed by user; the subject is the
 * account's profile (`view`, as `profile` answers it) while it exists, and for a stream only
 * while the stream's session lasts (docs/realtime.md).
 */
export function accountFamily(
  userById: (id: string) => Promise<User | null>,
  view: (user: User) => object,
): EventFamily {
  return {
    name: 'account',
    kinds: ACCOUNT_EVENTS,
    hasService: (service) => service === 'users',
    services: () => ['users'],
    serviceOf: (event) => (isAccountEvent(event) ? 'users' : null),
    topic(text) {
      if (text !== 'account') throw invalidTopic(text, 'is the own account as `account`, with nothing after it');
      return {
        async admit(principal) {
          const { userId } = principal;
          if (userId === null) throw commonErrors.not_signed_in();
          return {
            place: `account/${userId}`,
            matches: (event) => isAccountEvent(event) && event.userId === userId,
          };
        },
      };
    },
    placeOf: (event) => (isAccountEvent(event) ? `account/${event.userId}` : null),
    async read(event): Promise<Subject | null> {
      if (!isAccountEvent(event)) return null;
      const { kind, userId } = event;
      const user = kind === 'account.removed' ? null : await userById(userId);
      const bare = JSON.stringify({ event: kind });
      const full = user ? JSON.stringify({ event: kind, user: view(user) }) : bare;
      return {
        viewFor: (listener) => (listener.principal.userId !== userId ? null : listener.sessionEnded ? bare : full),
        body: (at) =>
          JSON.stringify(user ? { event: kind, at, userId, user: view(user) } : { event: kind, at, userId }),
      };
    },
  };
}
