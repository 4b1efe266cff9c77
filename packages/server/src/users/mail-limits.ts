import type { UserContext } from './user-context.js';

/**
 * Mails sent on a caller's behalf are limited (docs/security.md, "Mail"): per sending account
 * (`verifyEmail`, `message`) and per recipient address (those and `resetPassword`), each
 * `rateLimit.mails*` per `rateLimit.mailWindowSeconds`, counted in the database before the mail
 * is made (user-repo.ts `countAttempt`), so parallel calls and several processes count alike.
 * Without this, one account could send 120 mails to an arbitrary address in 100 ms.
 */

/** May `sender` (a user id) send one more mail now? Counts it. */
export async function claimSenderMail(ctx: UserContext, sender: string): Promise<boolean> {
  return (await count(ctx, `mail-from:${sender}`)) <= ctx.settings.mailsPerAccount;
}

/** May `recipient` be sent one more mail now? Counts it. */
export async function claimRecipientMail(ctx: UserContext, recipient: string): Promise<boolean> {
  return (await count(ctx, `mail-to:${recipient.toLowerCase()}`)) <= ctx.settings.mailsPerRecipient;
}

function count(ctx: UserContext, key: string): Promise<number> {
  const now = ctx.clock.now();
  return ctx.repo.countAttempt(key, now, now - ctx.settings.mailWindowMs);
}
