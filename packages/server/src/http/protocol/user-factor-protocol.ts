import { RECOVERY_CODES, FACTORS_ANSWER } from './user-views.js';
import { answerOf, DONE_ANSWER, SCALARS } from './answer-schemas.js';
import { asInput } from './wire-values.js';
import { command, type UserOperation, type UserWire } from './user-wire.js';

/** The own second factor: the authenticator (TOTP) and recovery codes (users/second-factor-ops.ts). */
export function factorOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'secondFactor',
      answer: FACTORS_ANSWER,
      summary: 'The own second factor: a confirmed authenticator, recovery codes left, whether one is required.',
      read: true,
      call: async (caller) => ({ result: true, ...(await users.secondFactor(caller)) }),
    },
    {
      op: 'totpEnrol',
      answer: answerOf({
        result: { const: true },
        secret: { ...SCALARS.string, description: 'The key to type into an app by hand (base32).' },
        uri: { ...SCALARS.string, description: 'The `otpauth://` link a QR code holds.' },
        qrSvg: { ...SCALARS.string, description: 'The link as an SVG QR code.' },
      }),
      summary:
        'A new authenticator (TOTP) secret for the signed-in account, or for a sign-in whose challenge says enrol.',
      limited: true,
      input: i.totpEnrol,
      call: async (caller, values) => ({ result: true, ...(await users.totpEnrol(caller, asInput(values))) }),
    },
    {
      op: 'totpConfirm',
      answer: answerOf({ result: { const: true }, recoveryCodes: RECOVERY_CODES }),
      summary: 'Confirm the new authenticator with a first code and the password; answers the recovery codes.',
      input: i.totpConfirm,
      call: async (caller, values) => ({ result: true, ...(await users.totpConfirm(caller, asInput(values))) }),
    },
    {
      op: 'totpRemove',
      answer: DONE_ANSWER,
      summary: 'Remove the authenticator and the recovery codes (the password or a current code again).',
      del: true,
      input: i.reauthentication,
      call: command(users.totpRemove),
    },
    {
      op: 'recoveryCodes',
      answer: answerOf({ result: { const: true }, recoveryCodes: RECOVERY_CODES }),
      summary: 'New recovery codes in place of the old ones (the password or a current code again).',
      input: i.reauthentication,
      call: async (caller, values) => ({ result: true, ...(await users.recoveryCodes(caller, asInput(values))) }),
    },
  ];
}
