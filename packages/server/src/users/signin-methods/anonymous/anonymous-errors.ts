import { defineErrors } from '../../../core/errors.js';

/** The anonymous accounts' error codes (listed in docs/errors.md). */
export const anonymousErrors = defineErrors({
  anonymous_limit: {
    kind: 'unavailable',
    message: 'No more anonymous accounts can be made now (users.anonymous.max). Try again later.',
  },
  not_anonymous: { kind: 'conflict', message: 'This account is a full account already.' },
});
