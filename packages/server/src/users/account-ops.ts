import { hashToken, randomToken } from '../core/ids.js';
import { ADMINS, holds } from '../core/permissions.js';
import { parseInput, invalidField } from '../core/validation.js';
import { allowedOf, type AllowedQuery } from '../core/permission-ops.js';
import { commonErrors } from '../core/errors.js';
import type { Mail } from '../core/mailer.js';
import type { Cause } from '../core/events.js';
import { mailedTokenTarget } from './mailed-token-target.js';
import { signinHooked } from './user-hooks.js';
import { claimRecipientMail, claimSenderMail } from './mail-limits.js';
import { userErrors } from './user-errors.js';
import { contactMail, resetMail, verifyEmailMail } from './user-mails.js';
import { DuplicateUserError, type User } from './user-repo.js';
import {
  confirmPassword,
  newMailedToken,
  requireFullUser,
  requireUser,
  type Caller,
  type UserContext,
} from './user-context.js';
import type {
  Credentials,
  EmailInput,
  GroupQuery,
  IdentityInput,
  MessageInput,
  PasswordChange,
  PasswordReset,
  ProfileValues,
  TokenInput,
} from './user-inputs.js';
import { issueToken, revokeToken } from './sessions.js';

/** Send a mail; a transport failure becomes `mail_failed` (503), the cause kept for the log. */
export async function sendMail(ctx: UserContext, mail: Mail, cause?: Cause): Promise<void> {
  try {
    await ctx.mailer.send(mail, cause);
  } catch (cause) {
    throw commonErrors.mail_failed({ cause });
  }
}

const tooManyMails = (ctx: UserContext) =>
  userErrors.too_many_mails({ retryAfterSeconds: ctx.settings.mailWindowMs / 1000 });

/** `message` without `mail.adminAddress` writes to the active administrators, this many at most. */
const MAX_ADMIN_RECIPIENTS = 20;

/** Operations a user calls on the own account (and the anonymous ones around signing in). */
/**
 * Mails `user` a token that makes `email` its address (`verifyEmail2`): an address becomes an
 * account's only when someone who reads it answers, so nobody holds another's address (which a
 * provider's sign-in with `users.linkProvidersByEmail` would join, signup-ops.ts `signupByProvider`).
 */
export async function mailEmailVerification(ctx: UserContext, user: User, email: string, cause?: Cause): Promise<void> {
  if (!(await claimSenderMail(ctx, user.id)) || !(await claimRecipientMail(ctx, email))) throw tooManyMails(ctx);
  const token = await newMailedToken(ctx, user.id, 'verify_email', ctx.settings.verifyEmailLifetimeMs, email);
  const url = (await ctx.runtime()).verifyEmailUrl;
  await sendMail(ctx, verifyEmailMail(email, user.name, url, token), cause);
}

/** `invalid` at `email` with `exists` when another account has the address. */
export async function refuseEmailOfAnother(ctx: UserContext, user: User, email: string): Promise<void> {
  const owner = await ctx.repo.byEmail(email);
  if (owner && owner.id !== user.id) throw invalidField('email', 'exists');
}

export function accountOps(ctx: UserContext) {
  const { repo, clock, inputs, settings } = ctx;

  /**
   * A reset token by mail to the account behind `identity`, if it is active and has an address
   * (and is under the recipient's mail limit). For anybody else the same statements run and the
   * mail is written too, then dropped (mailed-token-target.ts).
   */
  async function mailResetToken(identity: string): Promise<void> {
    const url = (await ctx.runtime()).resetPasswordUrl;
    const user = await mailedTokenTarget(ctx, identity, 'reset');
    if (!user) {
      resetMail(identity, identity, url, randomToken());
      return;
    }
    const token = await newMailedToken(ctx, user.id, 'reset', settings.resetLifetimeMs);
    await ctx.mailer.send(resetMail(user.email, user.name, url, token));
  }

  return {
    async ping(): Promise<void> {},

    /** A new session's token, and when it expires (ms since the epoch). */
    async token(caller: Caller, input: Credentials): Promise<{ token: string; expires: number }> {
      const { identity, password } = parseInput(inputs.credentials, input);
      await ctx.proofOfWork.demand(caller);
      await signinHooked(ctx, caller.principal, 'password', 'password', identity);
      return issueToken(ctx, caller, identity, password);
    },

    async signout(caller: Caller): Promise<void> {
      if (!caller.tokenHash) return;
      await revokeToken(ctx, caller.tokenHash);
      if (caller.user) ctx.events.emit({ kind: 'account.signed_out', userId: caller.user.id }, caller.principal);
    },

    /** The signed-in account (401 for anonymous callers). */
    async identity(caller: Caller): Promise<User> {
      return requireUser(caller);
    },

    /** The name the account signs in with (its email under the `email` policy) and its real name. */
    async name(caller: Caller): Promise<{ name: string; realname: string }> {
      const user = requireUser(caller);
      const policy = (await ctx.runtime()).identityPolicy;
      return { name: policy === 'email' && user.email ? user.email : user.name, realname: user.realname };
    },

    /** As `identity`, under the `profile` permission. */
    async profile(caller: Caller): Promise<User> {
      return requireUser(caller);
    },

    /** Signed in, and (when groups are named) a member of one of them? */
    async authenticated(caller: Caller, input: GroupQuery): Promise<boolean> {
      const { groups, group } = parseInput(inputs.authenticated, input);
      const wanted = [...(groups ?? []), ...(group ?? [])];
      return caller.user !== null && (wanted.length === 0 || holds(wanted, caller.principal, true));
    },

    allowed: (caller: Caller, input: AllowedQuery) => allowedOf(ctx.permissions, caller.principal, input),

    async update(caller: Caller, input: ProfileValues): Promise<void> {
      const user = requireUser(caller);
      const values = parseInput(inputs.update, input);
      await repo.update(user.id, values);
    },

    async updatePassword(caller: Caller, input: PasswordChange): Promise<void> {
      const user = requireFullUser(caller);
      const { password, newpassword } = parseInput(inputs.updatePassword, input);
      await confirmPassword(ctx, user, password);
      await ctx.breaches.refuseBreached(newpassword, 'newpassword');
      await repo.update(user.id, { passwordHash: await ctx.passwords.hash(newpassword) });
      // Other devices signed in with the old password are signed out; this one stays.
      await repo.deleteSessions(user.id, caller.tokenHash ?? undefined);
    },

    async updateEmail(caller: Caller, input: EmailInput): Promise<void> {
      const user = requireUser(caller);
      const { email } = parseInput(inputs.email, input);
      await changeEmail(ctx, user.id, email);
    },

    async verifyEmail(caller: Caller, input: EmailInput): Promise<void> {
      const user = requireFullUser(caller);
      const { email } = parseInput(inputs.email, input);
      await refuseEmailOfAnother(ctx, user, email);
      await mailEmailVerification(ctx, user, email, caller.principal);
    },

    async verifyEmail2(_caller: Caller, input: TokenInput): Promise<void> {
      const { token } = parseInput(inputs.token, input);
      const taken = await repo.takeToken(hashToken(token), 'verify_email', clock.now());
      if (!taken || taken.payload === null) throw userErrors.invalid_token({ fields: [['token', 'invalid']] });
      await changeEmail(ctx, taken.userId, taken.payload);
    },

    // Answers the same, in the same time, whether or not the account exists, so it cannot be
    // used to find accounts: the look-up and the mail happen after the answer (mail/mail-queue.ts).
    async resetPassword(caller: Caller, input: IdentityInput): Promise<void> {
      const { identity } = parseInput(inputs.identity, input);
      await ctx.proofOfWork.demand(caller);
      ctx.mailer.later(() => mailResetToken(identity));
    },

    async resetPassword2(_caller: Caller, input: PasswordReset): Promise<void> {
      const { token, newpassword } = parseInput(inputs.resetPassword2, input);
      // Before the token is taken: a refused password leaves the mailed link working for another.
      await ctx.breaches.refuseBreached(newpassword, 'newpassword');
      const taken = await repo.takeToken(hashToken(token), 'reset', clock.now());
      if (!taken) throw userErrors.invalid_token({ fields: [['token', 'invalid']] });
      await repo.update(taken.userId, {
        passwordHash: await ctx.passwords.hash(newpassword),
        failedSignins: 0,
        lockedUntil: null,
        lockouts: 0,
      });
      // Whoever knew the old password is signed out everywhere.
      await repo.deleteSessions(taken.userId);
    },

    async message(caller: Caller, input: MessageInput): Promise<void> {
      const user = requireFullUser(caller);
      const { message } = parseInput(inputs.message, input);
      // Without a configured address the administrators themselves are written to: a 503 would
      // make the original Python connector retry five times for nothing.
      const { adminAddress } = await ctx.runtime();
      const to = adminAddress ? [adminAddress] : await repo.activeEmailsOf(ADMINS, MAX_ADMIN_RECIPIENTS);
      if (to.length === 0) throw userErrors.no_admin_address();
      if (!(await claimSenderMail(ctx, user.id))) throw tooManyMails(ctx);
      const allowed: string[] = [];
      for (const address of to) if (await claimRecipientMail(ctx, address)) allowed.push(address);
      if (allowed.length === 0) throw tooManyMails(ctx);
      for (const address of allowed) await sendMail(ctx, contactMail(address, user, message), caller.principal);
    },

    async disable(caller: Caller): Promise<void> {
      const user = requireUser(caller);
      await repo.update(user.id, { state: 'disabled' });
      await repo.deleteSessions(user.id);
    },

    async delete(caller: Caller): Promise<void> {
      const user = requireUser(caller);
      await repo.remove(user.id);
    },
  };
}

/** Set a user's email, refusing one that another account holds. */
async function changeEmail(ctx: UserContext, userId: string, email: string): Promise<void> {
  const owner = await ctx.repo.byEmail(email);
  if (owner && owner.id !== userId) throw invalidField('email', 'exists');
  try {
    await ctx.repo.update(userId, { email });
  } catch (err) {
    if (err instanceof DuplicateUserError) throw invalidField(err.field, 'exists');
    throw err;
  }
}
