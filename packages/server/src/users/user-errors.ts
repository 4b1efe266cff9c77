import { defineErrors } from '../core/errors.js';

/** Codes of the user service, with their default messages (listed in docs/errors.md). */
export const userErrors = defineErrors({
  invalid_credentials: { kind: 'unauthenticated', message: 'Wrong identity or password.' },
  invalid_token: { kind: 'invalid', message: 'The token is unknown, used or expired.' },
  unknown_user: { kind: 'not_found', message: 'There is no such user.' },
  not_pending: { kind: 'invalid', message: 'The account is not waiting for a review.' },
  unknown_action: { kind: 'invalid', message: 'Unknown review action.' },
  too_many_mails: {
    kind: 'rate_limited',
    message: 'Too many mails were sent for this account or to this address. Try again later.',
  },
  no_admin_address: {
    kind: 'unavailable',
    message:
      'No administrator can be written to: set mail.adminAddress, or give an active member of admins an email address.',
  },
});
