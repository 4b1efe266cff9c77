import { hashToken } from '../core/ids.js';
import { newUserToken, type Caller, type UserContext } from './user-context.js';
import type { User } from './user-repo.js';

/**
 * Trusted devices (issue 45, item 6; `users.trustedDeviceDays`, 0 and so off by default): a second
 * step that passes with `trustDevice` also answers a device token (the pages keep it in the
 * HttpOnly cookie `roost_trusted_device`), kept as its hash in `user_tokens` for the configured
 * days. A first step of the same account that brings it (`X-Roost-Trusted-Device` or the cookie:
 * http/auth.ts `withClient`) skips the second factor. Another account's token, an expired one or
 * one of an account whose sessions were all ended (a password change or reset, a disabled
 * account, "sign out everywhere": session-repo.ts `deleteSessions`) or whose factor was removed
 * (signin-challenge.ts `removeSecondFactor`) does not.
 */

/** Whether the caller brings a device token `user` trusts now. */
export async function trustedDevice(ctx: UserContext, caller: Caller, user: User): Promise<boolean> {
  const token = caller.trustedDevice;
  if (!token || token.length > 200 || ctx.settings.trustedDeviceMs === 0) return false;
  const found = await ctx.repo.pendingToken({ tokenHash: hashToken(token) }, 'trusted_device', ctx.clock.now());
  return found?.userId === user.id;
}

/** A new device token for `user` when the setting allows it; null when devices are not trusted. */
export async function trustDevice(ctx: UserContext, user: User): Promise<{ token: string; expires: number } | null> {
  const lifetime = ctx.settings.trustedDeviceMs;
  if (lifetime === 0) return null;
  const token = await newUserToken(ctx, user.id, 'trusted_device', lifetime);
  return { token, expires: ctx.clock.now() + lifetime };
}
