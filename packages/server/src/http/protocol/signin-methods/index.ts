import type { UserOperation, UserWire } from '../user-wire.js';
import { anonymousOperations } from './anonymous-protocol.js';
import { idTokenOperations } from './id-token-protocol.js';
import { mailCodeOperations } from './mail-code-protocol.js';
import { passkeyOperations } from './passkey-protocol.js';
import { recoveryOperations } from './recovery-protocol.js';
import { smsCodeOperations } from './sms-code-protocol.js';
import { totpOperations } from './totp-protocol.js';

/** The protocol tables the sign-in methods bring, in the order of users/signin-methods/index.ts. */
export function methodOperations(wire: UserWire): UserOperation[] {
  return [
    ...mailCodeOperations(wire),
    ...totpOperations(wire),
    ...recoveryOperations(wire),
    ...passkeyOperations(wire),
    ...anonymousOperations(wire),
    ...idTokenOperations(wire),
    ...smsCodeOperations(wire),
  ];
}
