import { defineErrors } from '../../../core/errors.js';

/** The passkeys' error codes (listed in docs/errors.md). */
export const passkeyErrors = defineErrors({
  invalid_passkey: {
    kind: 'unauthenticated',
    message: 'The passkey was not accepted: it is unknown here, or the sign-in was used or took too long.',
  },
  passkey_failed: { kind: 'invalid', message: 'The new passkey could not be verified: start again.' },
  passkey_exists: { kind: 'conflict', message: 'This passkey is registered already.' },
  unknown_passkey: { kind: 'not_found', message: 'The account has no such passkey.' },
});
