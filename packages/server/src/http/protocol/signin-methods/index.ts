import type { UserOperation, UserWire } from '../user-wire.js';
import { passkeyOperations } from './passkey-protocol.js';

/** The protocol tables the sign-in methods bring (users/signin-methods/index.ts lists the methods). */
export function methodOperations(wire: UserWire): UserOperation[] {
  return [...passkeyOperations(wire)];
}
