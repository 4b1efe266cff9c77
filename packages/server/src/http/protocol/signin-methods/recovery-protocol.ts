import { RECOVERY_CODES } from '../user-views.js';
import { answerOf } from '../answer-schemas.js';
import { asInput } from '../wire-values.js';
import type { UserOperation, UserWire } from '../user-wire.js';

/** Recovery codes (users/signin-methods/recovery/): made anew. */
export function recoveryOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  return [
    {
      op: 'recoveryCodes',
      answer: answerOf({ result: { const: true }, recoveryCodes: RECOVERY_CODES }),
      summary: 'New recovery codes in place of the old ones (the password or a current code again).',
      input: users.inputs.reauthentication,
      call: async (caller, values) => ({ result: true, ...(await users.recoveryCodes(caller, asInput(values))) }),
    },
  ];
}
