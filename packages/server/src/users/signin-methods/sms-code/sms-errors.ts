import { defineErrors } from '../../../core/errors.js';

/** The SMS method's error codes (listed in docs/errors.md). */
export const smsErrors = defineErrors({
  sms_unavailable: {
    kind: 'unavailable',
    message: 'Codes by SMS are not set up on this server (users.sms.sender).',
  },
  no_phone: { kind: 'conflict', message: 'This account has no phone number for codes by SMS.' },
  no_phone_pending: { kind: 'conflict', message: 'No phone number is being added: add one first.' },
  phone_taken: { kind: 'conflict', message: 'This phone number belongs to another account.' },
});
