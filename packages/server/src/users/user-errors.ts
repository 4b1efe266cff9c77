import { defineErrors } from '../core/errors.js';

/** Codes of the user service, with their default messages (listed in docs/errors.md). */
export const userErrors = defineErrors({
  invalid_credentials: { kind: 'unauthenticated', message: 'Wrong identity or password.' },
  invalid_token: { kind: 'invalid', message: 'The token is unknown, used or expired.' },
  second_factor_required: {
    kind: 'unauthenticated',
    message:
      'This account signs in with a second factor: send the challenge with a code to token2 or signin2 ' +
      '(enrol first when `enrol` is true).',
  },
  invalid_code: { kind: 'unauthenticated', message: 'The code is wrong, used or expired.' },
  factor_exists: {
    kind: 'conflict',
    message: 'The account has a confirmed authenticator already: remove it before setting up another.',
  },
  no_factor: { kind: 'invalid', message: 'The account has no second factor.' },
  no_factor_pending: { kind: 'invalid', message: 'No authenticator is being set up: call totpEnrol first.' },
  unknown_session: { kind: 'not_found', message: 'The account has no such session.' },
  unknown_provider: { kind: 'not_found', message: 'There is no such sign-in provider.' },
  provider_unavailable: {
    kind: 'unavailable',
    message: 'The sign-in provider could not be reached or answered wrongly. Try again later.',
  },
  provider_failed: {
    kind: 'invalid',
    message: 'The sign-in with the provider failed, took too long or was used already: start again.',
  },
  redirect_not_allowed: {
    kind: 'invalid',
    message: 'A provider sign-in may not return to this address (users.providerRedirects).',
  },
  signup_closed: {
    kind: 'forbidden',
    message: 'No account belongs to this provider account, and new accounts cannot be made this way.',
  },
  email_taken: {
    kind: 'conflict',
    message: 'An account with this email exists: sign in to it, then link the provider on its account page.',
  },
  provider_linked: { kind: 'conflict', message: 'This provider account signs into another account already.' },
  account_disabled: { kind: 'forbidden', message: 'This account is disabled.' },
  anonymous_account: {
    kind: 'forbidden',
    message: 'An anonymous account cannot do this: upgrade it to a full account first (upgradeAnonymous).',
  },
  not_linked: { kind: 'not_found', message: 'The account is not linked to this provider.' },
  unknown_user: { kind: 'not_found', message: 'There is no such user.' },
  not_pending: { kind: 'invalid', message: 'The account is not waiting for a review.' },
  unknown_action: { kind: 'invalid', message: 'Unknown review action.' },
  too_many_mails: {
    kind: 'rate_limited',
    message: 'Too many mails were sent for this account or to this address. Try again later.',
  },
  challenge_required: {
    kind: 'rate_limited',
    message:
      'Too many sign-ins and sign-ups right now: solve the challenge of /users/api/challenge and send it as ' +
      'X-Roost-Proof (or the form field altcha).',
  },
  challenge_failed: {
    kind: 'forbidden',
    message: 'The proof of work is malformed, expired, wrong or used already: solve a new challenge.',
  },
  breach_check_unavailable: {
    kind: 'unavailable',
    message: 'The breached-password check could not be done. Try again later.',
  },
  no_admin_address: {
    kind: 'unavailable',
    message:
      'No administrator can be written to: set mail.adminAddress, or give an active member of admins an email address.',
  },
});
