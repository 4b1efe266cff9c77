import { KEY_PREFIX } from '../core/api-keys.js';
import { commonErrors } from '../core/errors.js';
import { processStats } from '../core/process-stats.js';
import { hashToken, randomToken } from '../core/ids.js';
import { tellNewDevice } from './new-device-mail.js';
import { challengeIfNeeded } from './signin-challenge.js';
import { claimAccount, claimAddress } from './signin-throttle.js';
import { userErrors } from './user-errors.js';
import { findByIdentity, principalOf, type Caller, type UserContext } from './user-context.js';
import type { User } from './user-repo.js';
import type { SessionMethod } from './signin-methods/index.js';

/**
 * Sign-in tokens: opaque random strings of which only the hash is stored. A token lives
 * `tokenLifetimeMs`; once half of that has passed, using it extends it, but never past
 * `sessionMaxMs` after its sign-in (OWASP ASVS 5.0, 7.3.2): the cap is the expiry itself, so
 * nothing else needs checking. Its last use is kept to within `LAST_USED_STEP_MS`, so a session
 * costs one write per few minutes of use at most and reads stay reads.
 */
const LAST_USED_STEP_MS = 5 * 60_000;

/** A new session's token, and when it expires (ms since the epoch). */
export interface IssuedToken {
  token: string;
  expires: number;
}

/**
 * Check identity and password and issue a token, or, when the account needs a second factor,
 * throw `second_factor_required` with a challenge (signin-challenge.ts). Every failure answers
 * the same, so the answer tells nothing about which accounts exist; attempts are throttled by
 * account and by `address` (signin-throttle.ts).
 */
export async function issueToken(
  ctx: UserContext,
  caller: Caller,
  identity: string,
  password: string,
): Promise<IssuedToken> {
  const fromAddress = await claimAddress(ctx, caller.address ?? null);
  const user = await findByIdentity(ctx, identity);
  if (!user) {
    await ctx.passwords.burn(password);
    processStats.signinFailures++;
    throw userErrors.invalid_credentials();
  }
  const attempt = await claimAccount(ctx, user);
  // A locked account costs the caller the same time as any other failure.
  let ok = false;
  if (attempt.allowed) ok = await ctx.passwords.verify(user.passwordHash, password);
  else await ctx.passwords.burn(password);
  if (!ok) {
    await attempt.failed();
    processStats.signinFailures++;
    throw userErrors.invalid_credentials();
  }
  // Pending and disabled accounts cannot sign in (the password was right: the attempt does not count).
  if (user.state !== 'active') {
    await attempt.succeeded();
    await fromAddress.succeeded();
    throw userErrors.invalid_credentials();
  }
  // Hashed at a cost no longer configured (`users.passwordHashing`): the right password, in hand
  // now, is stored at today's cost, so a raised cost reaches every account that signs in.
  if (ctx.passwords.outdated(user.passwordHash))
    await ctx.repo.rehashPassword(user.id, user.passwordHash, await ctx.passwords.hash(password));
  // With a second factor to come, the right password still counts as an attempt until the second
  // step completes: otherwise each password sign-in would reset the count of wrong codes.
  await challengeIfNeeded(ctx, user, caller);
  await attempt.succeeded();
  await fromAddress.succeeded();
  return startSession(ctx, caller, user, 'password');
}

/** A new session of `user`, signed into by `method`, from the caller's address and device. */
export async function startSession(
  ctx: UserContext,
  caller: Caller,
  user: User,
  method: SessionMethod,
): Promise<IssuedToken> {
  const now = ctx.clock.now();
  const token = randomToken();
  const expires = now + Math.min(ctx.settings.tokenLifetimeMs, ctx.settings.sessionMaxMs);
  await ctx.repo.insertSession({
    tokenHash: hashToken(token),
    userId: user.id,
    method,
    device: caller.device ?? null,
    address: caller.address ?? null,
    created: now,
    expires,
  });
  tellNewDevice(ctx, caller, user, method);
  return { token, expires };
}

/**
 * The caller behind a token, or null for an unknown, expired or revoked one or an inactive account.
 * An API key's token (`roost_…`, core/api-keys.ts) is the keys' to check: one that is not valid
 * throws `invalid_api_key` rather than making an anonymous caller, so a server whose key was
 * revoked learns it at once.
 */
export async function authenticate(ctx: UserContext, token: string): Promise<Caller | null> {
  if (token.startsWith(KEY_PREFIX)) return keyCaller(ctx, token);
  if (token.length === 0 || token.length > 200) return null;
  const tokenHash = hashToken(token);
  const now = ctx.clock.now();
  const found = await ctx.repo.sessionUser(tokenHash, now);
  if (found?.user.state !== 'active') return null;
  const lifetime = ctx.settings.tokenLifetimeMs;
  const extended = Math.min(now + lifetime, found.created + ctx.settings.sessionMaxMs);
  // An impersonation keeps the end it was given (impersonation-ops.ts).
  const extend = found.impersonator === null && found.expires - now < lifetime / 2 && extended > found.expires;
  if (extend || now - found.lastUsed >= LAST_USED_STEP_MS)
    await ctx.repo.touchSession(tokenHash, now, extend ? extended : undefined);
  let caller = ctx.callers.get(found);
  if (!caller) {
    caller = Object.freeze({
      principal: Object.freeze(principalOf(found.user)),
      user: found.user,
      tokenHash,
      impersonator: found.impersonator,
    });
    ctx.callers.set(found, caller);
  }
  return caller;
}

async function keyCaller(ctx: UserContext, token: string): Promise<Caller> {
  if (!ctx.keys) throw commonErrors.not_allowed({ message: 'API keys are not accepted here.' });
  const principal = await ctx.keys.authenticate(token);
  let caller = ctx.callers.get(principal);
  if (!caller) {
    caller = Object.freeze({ principal, user: null, tokenHash: null });
    ctx.callers.set(principal, caller);
  }
  return caller;
}

export async function revokeToken(ctx: UserContext, tokenHash: string): Promise<void> {
  await ctx.repo.deleteSession(tokenHash);
}
