import { signinHooked } from '../../user-hooks.js';
import { randomInt } from 'node:crypto';
import { hashToken } from '../../../core/ids.js';
import { parseInput } from '../../../core/validation.js';
import { processStats } from '../../../core/process-stats.js';
import { mailedTokenTarget } from '../../mailed-token-target.js';
import { startSession, type IssuedToken } from '../../sessions.js';
import { challengeIfNeeded } from '../../signin-challenge.js';
import { claimAccount, claimAddress, claimNobody, NO_ACCOUNT, type SigninAttempt } from '../../signin-throttle.js';
import { userErrors } from '../../user-errors.js';
import { signinCodeMail } from '../../user-mails.js';
import { findByIdentity, newMailedToken, type Caller, type UserContext } from '../../user-context.js';
import type { IdentityInput } from '../../user-inputs.js';
import type { User } from '../../user-repo.js';
import { mailCodeInputs, type MailedSignin } from './mail-code-inputs.js';

export type MailCodeOps = {
  /** Mails a code and a link (off until `signinMail` is granted). */
  signinMail(caller: Caller, input: IdentityInput): Promise<void>;
  /** A session for the link's token, or for the identity with the code. */
  signinMail2(caller: Caller, input: MailedSignin): Promise<IssuedToken>;
};

/** The method's settings from the boot configuration (index.ts makes them). */
export interface MailCodeSettings {
  /** How long a mailed code and link work. */
  lifetimeMs: number;
  /** The page a sign-in mail links to (admin/user-pages/signin-mail-page.ts). */
  url: string;
}

/**
 * Sign-in by mail, without a password (docs/users.md, "Sign-in by mail"): off until an
 * administrator grants the permission `signinMail` (the settings page's switch). `signinMail`
 * mails the account a six-digit code and a link holding a long token, both good once, for
 * `users.signinCodeLifetimeSeconds`, and the newest only; it answers the same whether or not the
 * account exists, after the answer (the mail queue), as `resetPassword` does. `signinMail2` takes
 * the identity with the code, or the link's token, and answers a session. A wrong code counts as
 * a failed sign-in of the account and the address (users/signin-throttle.ts), so its 20 bits are
 * guessed no faster than a password; the link's token is 256 bits. An account with a second
 * factor still needs it: the answer is then `second_factor_required` (users/signin-challenge.ts).
 * The codes are rows of the service's `user_tokens` (`signin_code`), as the other mailed tokens.
 */
export function mailCodeOps(ctx: UserContext, settings: MailCodeSettings): MailCodeOps {
  const { repo, clock, inputs } = ctx;

  /** The stored form of a code: its hash bound to the account (a code alone names no account). */
  const codeHash = (userId: string, code: string) => hashToken(`signin-code\0${userId}\0${code}`);

  /**
   * The code and link by mail; for an unknown identity the same work, the mail dropped
   * (users/mailed-token-target.ts).
   */
  async function mailCode(identity: string): Promise<void> {
    const user = await mailedTokenTarget(ctx, identity, 'signin_code');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    if (!user) {
      signinCodeMail(identity, identity, settings.url, hashToken(code), code);
      return;
    }
    const token = await newMailedToken(ctx, user.id, 'signin_code', settings.lifetimeMs, codeHash(user.id, code));
    await ctx.mailer.send(signinCodeMail(user.email, user.name, settings.url, token, code));
  }

  /** Takes the account's pending code when `code` is it: false for any other code, or none pending. */
  async function takeCode(userId: string, code: string): Promise<boolean> {
    const pending = await repo.pendingToken({ userId }, 'signin_code', clock.now());
    if (!pending || pending.payload !== codeHash(userId, code)) return false;
    return (await repo.takeToken(pending.tokenHash, 'signin_code', clock.now())) !== null;
  }

  return {
    async signinMail(caller: Caller, input: IdentityInput): Promise<void> {
      const { identity } = parseInput(inputs.identity, input);
      await ctx.proofOfWork.demand(caller);
      await signinHooked(ctx, caller.principal, 'mail', 'request', identity);
      ctx.mailer.later(() => mailCode(identity));
    },

    async signinMail2(caller: Caller, input: MailedSignin): Promise<IssuedToken> {
      const { token, identity, code } = parseInput(mailCodeInputs.mailedSignin, input);
      await signinHooked(ctx, caller.principal, 'mail', 'answer', identity ?? '');
      const fromAddress = await claimAddress(ctx, caller.address ?? null);
      let user: User | null;
      let attempt: SigninAttempt | null = null;
      if (token !== undefined) {
        const taken = await repo.takeToken(hashToken(token), 'signin_code', clock.now());
        user = taken ? await repo.byId(taken.userId) : null;
        if (!user) throw userErrors.invalid_token({ fields: [['token', 'invalid']] });
      } else {
        user = await findByIdentity(ctx, identity ?? '');
        // An identity nobody has runs the same statements on an id no account has (signin-throttle.ts `claimNobody`).
        attempt = user ? await claimAccount(ctx, user) : await claimNobody(ctx);
        if (!user || !attempt.allowed || !(await takeCode(user?.id ?? NO_ACCOUNT, code ?? ''))) {
          await attempt.failed();
          processStats.signinFailures++;
          throw userErrors.invalid_code();
        }
      }
      if (user.state !== 'active') throw userErrors.invalid_code();
      // As after a password: with a second factor to come, the attempt counts until it completes.
      await challengeIfNeeded(ctx, user, caller);
      await attempt?.succeeded();
      await fromAddress.succeeded();
      return startSession(ctx, caller, user, 'mail');
    },
  };
}
