import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/clock.js';

/**
 * The first run's setup link (docs/operations.md, "The first administrator"): while no
 * administrator exists, `roost serve` prints `/admin/setup?token=…`, which makes the first one
 * in the browser (admin/pages/setup-page.ts), as PocketBase's installer does. A link works once
 * and for `SETUP_LINK_MINUTES`; it lives in the memory of the process that printed it, so a
 * restart prints a new one and an old one stops working. Only its hash is kept.
 */
export const SETUP_LINK_MINUTES = 60;

export interface SetupLinks {
  /** A new link's token; any earlier one stops working. */
  issue(): string;
  /** Whether `token` is the current, unused, unexpired token. */
  valid(token: string): boolean;
  /** Use the token up, if it is valid: true for exactly one caller. */
  consume(token: string): boolean;
  /** Make a consumed token valid again (the account it was used for could not be made). */
  restore(token: string): void;
}

const hash = (token: string) => createHash('sha256').update(token).digest();

export function createSetupLinks(clock: Clock): SetupLinks {
  let current: { hash: Buffer; expires: number; used: boolean } | null = null;
  const matches = (token: string) => current !== null && timingSafeEqual(current.hash, hash(token));
  const valid = (token: string) =>
    typeof token === 'string' && token.length > 0 && matches(token) && !current!.used && clock.now() < current!.expires;
  return {
    issue() {
      const token = randomBytes(24).toString('base64url');
      current = { hash: hash(token), expires: clock.now() + SETUP_LINK_MINUTES * 60_000, used: false };
      return token;
    },
    valid,
    consume(token) {
      if (!valid(token)) return false;
      current!.used = true;
      return true;
    },
    restore(token) {
      if (current && matches(token)) current.used = false;
    },
  };
}
