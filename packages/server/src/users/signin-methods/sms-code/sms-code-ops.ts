import { isRoostError } from '../../../core/errors.js';
import { processStats } from '../../../core/process-stats.js';
import { invalidField, parseInput } from '../../../core/validation.js';
import { startSession, type IssuedToken } from '../../sessions.js';
import {
  challengedUser,
  challengeIfNeeded,
  factorConfirmed,
  hasDemandedFactor,
  removeSecondFactor,
} from '../../signin-challenge.js';
import { claimAccount, claimAddress, claimNobody, NO_ACCOUNT } from '../../signin-throttle.js';
import { userErrors } from '../../user-errors.js';
import { signinHooked } from '../../user-hooks.js';
import { reauthenticate, requireUser, type Caller, type UserContext } from '../../user-context.js';
import type { Reauthentication } from '../../user-inputs.js';
import { normalisePhone, type NumberRules } from './phone-numbers.js';
import {
  smsCodeInputs,
  type ChallengeInput,
  type PhoneAddition,
  type PhoneInput,
  type PhoneSignin,
  type SmsConfirmation,
} from './sms-code-inputs.js';
import { claimNumberTexts, sendCode, smsQueue, takeCode, type SentSms, type SmsEnv } from './sms-codes.js';
import { smsErrors } from './sms-errors.js';

/** The account's phone as its owner sees it: the confirmed number and one being added, in E.164. */
export interface SmsPhone {
  phone: string | null;
  pending: string | null;
}

export type SmsCodeOps = {
  /** Sends a code to a number being added (the password again). */
  smsAdd(caller: Caller, input: PhoneAddition): Promise<SentSms & { phone: string }>;
  /** The code of the number being added confirms it; answers new recovery codes. */
  smsConfirm(caller: Caller, input: SmsConfirmation): Promise<{ recoveryCodes: string[] }>;
  /** Removes the account's phone (the password again). */
  smsRemove(caller: Caller, input: Reauthentication): Promise<void>;
  smsPhone(caller: Caller, input: Record<string, never>): Promise<SmsPhone>;
  /** A code to the number's account, for a sign-in (off until `smsSignin` is granted). */
  smsSignin(caller: Caller, input: PhoneInput): Promise<void>;
  /** A session for the number with its code. */
  smsSignin2(caller: Caller, input: PhoneSignin): Promise<IssuedToken>;
  /** A code for a sign-in's second step, to the challenged account's phone. */
  smsChallenge(caller: Caller, input: ChallengeInput): Promise<SentSms>;
};

/**
 * Codes by SMS (docs/users.md, "Codes by SMS"). An account adds a number (`smsAdd`, with its
 * password again, as every change of how it signs in: users/user-context.ts `reauthenticate`),
 * which is confirmed by the code sent to it (`smsConfirm`); from then on the phone is a second
 * factor (signin-challenge.ts: a password alone is not enough, `smsChallenge` sends the second
 * step's code) and, where an administrator grants `smsSignin`, a first one: a code to the
 * number (`smsSignin`, answered the same whether or not an account has it, its texts sent after
 * the answer) signs in with the number (`smsSignin2`). As a mailed code does, the phone then
 * counts as one factor, something owned: an account with another second factor continues with
 * that one, never with the phone again. Codes are made and checked in sms-codes.ts.
 */
export function smsCodeOps(ctx: UserContext, env: SmsEnv, rules: NumberRules): SmsCodeOps {
  const { repo } = env;

  /** The typed number in E.164, or `invalid` at `phone` with the reason (phone-numbers.ts). */
  function phoneOf(typed: string): string {
    const checked = normalisePhone(typed, rules);
    if ('refused' in checked) throw invalidField('phone', checked.refused);
    return checked.phone;
  }

  return {
    async smsAdd(caller, input) {
      const user = requireUser(caller);
      const { phone: typed, password, code } = parseInput(smsCodeInputs.smsAdd, input);
      smsQueue(env);
      const phone = phoneOf(typed);
      await reauthenticate(ctx, user, { password, code });
      // Whether another account has the number is told only to whoever gets its code (smsConfirm).
      await repo.setPending(user.id, phone);
      return { phone, ...(await sendCode(ctx, env, caller, user, 'enrol', phone)) };
    },

    async smsConfirm(caller, input) {
      const user = requireUser(caller);
      const { code } = parseInput(smsCodeInputs.smsConfirm, input);
      const pending = (await repo.phoneOf(user.id))?.pending;
      if (!pending) throw smsErrors.no_phone_pending();
      if (!(await takeCode(ctx, env, user.id, 'enrol', code, pending))) throw invalidField('code', 'invalid');
      if (!(await repo.confirmPending(user.id, ctx.clock.now())))
        throw smsErrors.phone_taken({ fields: [['phone', 'taken']] });
      return { recoveryCodes: (await factorConfirmed(ctx, user)).recoveryCodes ?? [] };
    },

    async smsRemove(caller, input) {
      const user = requireUser(caller);
      const found = await repo.phoneOf(user.id);
      if (!found) throw smsErrors.no_phone();
      if (found.phone !== null) await reauthenticate(ctx, user, input);
      await repo.remove(user.id);
      // The phone was the last factor that asks for a second step: the recovery codes go with it.
      if (!(await hasDemandedFactor(ctx, user))) await removeSecondFactor(ctx, user);
    },

    async smsPhone(caller) {
      const user = requireUser(caller);
      return (await repo.phoneOf(user.id)) ?? { phone: null, pending: null };
    },

    async smsSignin(caller, input) {
      const { phone: typed } = parseInput(smsCodeInputs.smsSignin, input);
      smsQueue(env);
      const phone = phoneOf(typed);
      await ctx.proofOfWork.demand(caller);
      await signinHooked(ctx, caller.principal, 'sms', 'request', phone);
      // The number's and the address's limits count every request, known number or not.
      await claimNumberTexts(ctx, env, caller, phone);
      ctx.mailer.later(async () => {
        const owner = await repo.ownerOf(phone);
        const user = owner ? await ctx.repo.byId(owner) : null;
        if (user?.state !== 'active') return;
        try {
          await sendCode(ctx, env, caller, user, 'signin', phone, true);
        } catch (err) {
          // The account's own limit: nothing to send, nobody to tell (the answer went already).
          if (!isRoostError(err) || err.kind !== 'rate_limited') throw err;
        }
      });
    },

    async smsSignin2(caller, input) {
      const { phone: typed, code } = parseInput(smsCodeInputs.smsSignin2, input);
      const phone = phoneOf(typed);
      await signinHooked(ctx, caller.principal, 'sms', 'answer', phone);
      const fromAddress = await claimAddress(ctx, caller.address ?? null);
      const owner = await repo.ownerOf(phone);
      const user = owner ? await ctx.repo.byId(owner) : null;
      // A number nobody has runs the same statements on an id no account has (signin-throttle.ts `claimNobody`).
      const attempt = user ? await claimAccount(ctx, user) : await claimNobody(ctx);
      const taken = attempt.allowed && (await takeCode(ctx, env, user?.id ?? NO_ACCOUNT, 'signin', code, phone));
      if (!user || !taken) {
        await attempt.failed();
        processStats.signinFailures++;
        throw userErrors.invalid_code();
      }
      if (user.state !== 'active') throw userErrors.invalid_code();
      // One factor: another second factor the account has is still asked for, the phone never twice.
      await challengeIfNeeded(ctx, user, caller, 'sms-code');
      await attempt.succeeded();
      await fromAddress.succeeded();
      return startSession(ctx, caller, user, 'sms');
    },

    async smsChallenge(caller, input) {
      const { challenge } = parseInput(smsCodeInputs.smsChallenge, input);
      const found = await challengedUser(ctx, challenge);
      if (found?.kind !== 'verify' || found.used === 'sms-code')
        throw userErrors.invalid_token({ fields: [['challenge', 'invalid']] });
      const phone = (await repo.phoneOf(found.user.id))?.phone;
      if (!phone) throw smsErrors.no_phone();
      return sendCode(ctx, env, caller, found.user, 'step', phone);
    },
  };
}
