import { randomName } from '../../../core/ids.js';
import type { Passwords } from '../../passwords.js';

/**
 * Recovery codes: ten per account, given once when the second factor is confirmed (or the codes
 * are made anew), each usable once (recovery-repo.ts `take`). A code holds 51 random
 * bits, below the 112 that would let a plain hash do (OWASP ASVS 5.0, 6.5.2), so each is stored
 * as its argon2id hash with its own salt, as passwords are (users/passwords.ts): a stolen database
 * gives no code without the work of guessing it. Checking one compares with each code left of
 * the account (at most ten hashes, side by side: a recovery sign-in is rare).
 */
const RECOVERY_CODE_COUNT = 10;

/** `abcde-fghij`: ten characters of [a-z0-9], in two halves that are easy to read out. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const code = randomName(10);
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** A code as typed: case, spaces and the dash do not matter. */
const normalised = (typed: string) => typed.toLowerCase().replace(/[\s-]/g, '');

/** The stored forms of new codes. */
export function hashRecoveryCodes(passwords: Passwords, codes: readonly string[]): Promise<string[]> {
  return Promise.all(codes.map((code) => passwords.hash(normalised(code))));
}

/** The stored hash among `stored` that `typed` matches, or null. */
export async function matchRecoveryCode(
  passwords: Passwords,
  stored: readonly string[],
  typed: string,
): Promise<string | null> {
  const code = normalised(typed);
  if (!/^[a-z0-9]{10}$/.test(code)) return null;
  const matches = await Promise.all(stored.map((hash) => passwords.verify(hash, code)));
  return stored[matches.indexOf(true)] ?? null;
}
