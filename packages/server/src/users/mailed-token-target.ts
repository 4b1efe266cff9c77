import { hashToken, randomToken } from '../core/ids.js';
import type { UserTokenPurpose } from '../storage/schema.js';
import { claimRecipientMail } from './mail-limits.js';
import { NO_ACCOUNT } from './signin-throttle.js';
import { findByIdentity, type UserContext } from './user-context.js';
import type { User } from './user-repo.js';

/**
 * The account a mail with a token goes to (`resetPassword`, `signinMail`), found after the
 * answer (mail/mail-queue.ts `later`). Whether or not an account matches, the same statements
 * run (docs/security.md, "Mail"): the look-up, the recipient's count (the identity as given
 * stands for the address nobody has), and the first statement of `newMailedToken`
 * (user-context.ts), with a token drawn and hashed; so the work after an unknown identity's
 * answer keeps the server as busy as an account's, but for the token's row and the queued mail.
 * Null: nothing is to be sent (no active account with an address, or past the recipient's limit).
 */
export async function mailedTokenTarget(
  ctx: UserContext,
  identity: string,
  purpose: UserTokenPurpose,
): Promise<(User & { email: string }) | null> {
  const found = await findByIdentity(ctx, identity);
  const user = found?.state === 'active' && found.email ? { ...found, email: found.email } : null;
  const allowed = await claimRecipientMail(ctx, user?.email ?? identity);
  if (user && allowed) return user;
  await ctx.repo.deleteTokens(NO_ACCOUNT, purpose);
  hashToken(randomToken());
  return null;
}
