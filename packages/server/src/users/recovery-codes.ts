import { hashToken, randomName } from '../core/ids.js';

/**
 * Recovery codes: ten per account, given once when the second factor is confirmed (or the codes
 * are made anew), stored as their SHA-256 only (as tokens are: each holds 51 random bits, so a
 * slow hash would add nothing), each usable once (factor-repo.ts `takeRecoveryCode`).
 */
const RECOVERY_CODE_COUNT = 10;

/** `abcde-fghij`: ten characters of [a-z0-9], in two halves that are easy to read out. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const code = randomName(10);
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** The stored form of a code as typed: case, spaces and the dash do not matter. */
export function recoveryCodeHash(typed: string): string {
  return hashToken(typed.toLowerCase().replace(/[\s-]/g, ''));
}
