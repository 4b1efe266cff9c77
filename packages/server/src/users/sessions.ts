import { processStats } from '../core/process-stats.js';
import { hashToken, randomToken } from '../core/ids.js';
import { burnPasswordCheck, verifyPassword } from './passwords.js';
import { claimAccount, claimAddress } from './signin-throttle.js';
import { userErrors } from './user-errors.js';
import { findByIdentity, principalOf, type Caller, type UserContext } from './user-context.js';

/**
 * Sign-in tokens: opaque random strings of which only the hash is stored. A token lives
 * `tokenLifetimeMs`; once half of that has passed, using it extends it (one write per half
 * lifetime at most, so reads stay reads).
 */

/**
 * Check identity and password and issue a token. Every failure answers the same, so the answer
 * tells nothing about which accounts exist; attempts are throttled by account and by `address`
 * (signin-throttle.ts).
 */
export async function issueToken(
  ctx: UserContext,
  identity: string,
  password: string,
  address: string | null,
): Promise<{ token: string; expires: number }> {
  const fromAddress = await claimAddress(ctx, address);
  const user = await findByIdentity(ctx, identity);
  if (!user) {
    await burnPasswordCheck(password);
    processStats.signinFailures++;
    throw userErrors.invalid_credentials();
  }
  const attempt = await claimAccount(ctx, user);
  // A locked account costs the caller the same time as any other failure.
  let ok = false;
  if (attempt.allowed) ok = await verifyPassword(user.passwordHash, password);
  else await burnPasswordCheck(password);
  if (!ok) {
    await attempt.failed();
    processStats.signinFailures++;
    throw userErrors.invalid_credentials();
  }
  // Pending and disabled accounts cannot sign in (the password was right: the attempt does not count).
  await attempt.succeeded();
  await fromAddress.succeeded();
  if (user.state !== 'active') throw userErrors.invalid_credentials();

  const now = ctx.clock.now();
  const token = randomToken();
  const expires = now + ctx.settings.tokenLifetimeMs;
  await ctx.repo.insertSession(hashToken(token), user.id, now, expires);
  return { token, expires };
}

/** The caller behind a token, or null for an unknown, expired or revoked one or an inactive account. */
export async function authenticate(ctx: UserContext, token: string): Promise<Caller | null> {
  if (token.length === 0 || token.length > 200) return null;
  const tokenHash = hashToken(token);
  const now = ctx.clock.now();
  const found = await ctx.repo.sessionUser(tokenHash, now);
  if (found?.user.state !== 'active') return null;
  const lifetime = ctx.settings.tokenLifetimeMs;
  if (found.expires - now < lifetime / 2) await ctx.repo.extendSession(tokenHash, now + lifetime);
  let caller = ctx.callers.get(found);
  if (!caller) {
    caller = Object.freeze({ principal: Object.freeze(principalOf(found.user)), user: found.user, tokenHash });
    ctx.callers.set(found, caller);
  }
  return caller;
}

export async function revokeToken(ctx: UserContext, tokenHash: string): Promise<void> {
  await ctx.repo.deleteSession(tokenHash);
}
