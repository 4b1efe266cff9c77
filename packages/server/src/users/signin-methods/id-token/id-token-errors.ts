import { defineErrors } from '../../../core/errors.js';

/** The error codes of sign-in with an app's ID token (listed in docs/errors.md). */
export const idTokenErrors = defineErrors({
  invalid_id_token: {
    kind: 'unauthenticated',
    message:
      'The ID token was not accepted: its signature, issuer, audience, expiry or nonce is wrong, ' +
      'or it was used already.',
  },
  account_pending: {
    kind: 'forbidden',
    message: 'The account is made and not open yet: it waits for a review or for its activation mail.',
  },
});
