import type { UserOperation, UserWire } from '../user-wire.js';
import { passkeyOperations } from './passkey-protocol.js';
import { recoveryOperations } from './recovery-protocol.js';
import { totpOperations } from './totp-protocol.js';

/** The protocol tables the sign-in methods bring (users/signin-methods/index.ts lists the methods). */
export function methodOperations(wire: UserWire): UserOperation[] {
  return [...totpOperations(wire), ...recoveryOperations(wire), ...passkeyOperations(wire)];
}
