import { commonErrors } from '../core/errors.js';
import type { UserContext } from './user-context.js';
import type { User } from './user-repo.js';

/**
 * Password guessing is slowed where it fails, not where it succeeds (docs/security.md,
 * "Guessing is slowed"): a client that signs in often with the right password is never held
 * back, while failures are counted twice, in the database so that every sign-in route
 * (`token`, `signin`, the sign-in pages) and every process shares the counts:
 * - per account: every `lockoutThreshold` failures lock it, the first time for `lockoutMs`,
 *   each lock in a row twice as long as the one before, never longer than `lockoutMaxMs` (so
 *   nobody can lock an account out for good); a successful sign-in or a password reset ends
 *   the series;
 * - per client address: more than `addressFailures` failures within `addressWindowMs` are
 *   refused as `rate_limited` before any password is checked.
 * Each attempt is counted before its password is checked, in one statement (user-repo.ts
 * `claimSigninAttempt`, `countAttempt`): parallel attempts cannot read the same count,
 * so a burst gets no more password checks than the threshold allows.
 */
export interface SigninAttempt {
  /** Whether the password may be checked: false for a locked account (answered as any failure). */
  readonly allowed: boolean;
  succeeded(): Promise<void>;
  failed(): Promise<void>;
}

/** Count an attempt from `address` (null: not known, as for calls without HTTP). */
export async function claimAddress(ctx: UserContext, address: string | null): Promise<{ succeeded(): Promise<void> }> {
  if (address === null) return { succeeded: async () => {} };
  const now = ctx.clock.now();
  const key = `signin:${address}`;
  const failures = await ctx.repo.countAttempt(key, now, now - ctx.settings.addressWindowMs);
  if (failures > ctx.settings.addressFailures)
    throw commonErrors.rate_limited({ retryAfterSeconds: ctx.settings.addressWindowMs / 1000 });
  return { succeeded: () => ctx.repo.refundAttempt(key) };
}

/** An account id no account has: a statement on it touches no row (as users/mailed-token-target.ts). */
export const NO_ACCOUNT = '';

/**
 * The attempt of a code sign-in for a number or address no account has: the account's claim
 * statement run on an id no account has, so that the answer costs what a wrong code for an
 * account costs and its time does not tell which exist (docs/security.md, "Guessing is slowed").
 */
export async function claimNobody(ctx: UserContext): Promise<SigninAttempt> {
  await ctx.repo.claimSigninAttempt(NO_ACCOUNT, ctx.clock.now());
  return { allowed: true, succeeded: async () => {}, failed: async () => {} };
}

/** Count an attempt on `user`'s account; locked accounts are not counted further. */
export async function claimAccount(ctx: UserContext, user: User): Promise<SigninAttempt> {
  const { lockoutThreshold: threshold } = ctx.settings;
  const now = ctx.clock.now();
  const claim = await ctx.repo.claimSigninAttempt(user.id, now);
  const lock = () => ctx.repo.lockAfter(user.id, threshold, now, now + lockoutMs(ctx, claim?.lockouts ?? 0));
  if (claim === null) return { allowed: false, succeeded: async () => {}, failed: async () => {} };
  if (claim.failures > threshold) {
    // Past the threshold in a burst: the attempt that reached it locks (or is about to).
    await lock();
    return { allowed: false, succeeded: async () => {}, failed: async () => {} };
  }
  return {
    allowed: true,
    succeeded: () =>
      ctx.repo.update(user.id, { activity: ctx.clock.now(), failedSignins: 0, lockedUntil: null, lockouts: 0 }),
    failed: async () => {
      if (claim.failures >= threshold) await lock();
    },
  };
}

/** The length of the next lock after `lockouts` locks in a row. */
function lockoutMs(ctx: UserContext, lockouts: number): number {
  const { lockoutMs: first, lockoutMaxMs: max } = ctx.settings;
  return Math.min(max, first * 2 ** Math.min(lockouts, 30));
}
