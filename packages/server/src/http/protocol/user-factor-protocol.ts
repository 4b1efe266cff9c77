import { FACTORS_ANSWER } from './user-views.js';
import type { UserOperation, UserWire } from './user-wire.js';

/**
 * The own second factor as a whole (users/second-factor-ops.ts); each method's own operations
 * are in signin-methods/ (the authenticator's in totp-protocol.ts, the recovery codes' in recovery-protocol.ts).
 */
export function factorOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  return [
    {
      op: 'secondFactor',
      answer: FACTORS_ANSWER,
      summary: 'The own second factor: a confirmed authenticator, recovery codes left, whether one is required.',
      read: true,
      call: async (caller) => ({ result: true, ...(await users.secondFactor(caller)) }),
    },
  ];
}
