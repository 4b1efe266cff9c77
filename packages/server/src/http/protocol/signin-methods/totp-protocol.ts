import { RECOVERY_CODES } from '../user-views.js';
import { answerOf, DONE_ANSWER, SCALARS } from '../answer-schemas.js';
import { asInput } from '../wire-values.js';
import { command, type UserOperation, type UserWire } from '../user-wire.js';

/** The authenticator app (users/signin-methods/totp/): setting it up, confirming it, removing it. */
export function totpOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
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
  ];
}
