import { hashToken, randomToken } from '../core/ids.js';
import { parseInput } from '../core/validation.js';
import { processStats } from '../core/process-stats.js';
import { hashRecoveryCodes, matchRecoveryCode, newRecoveryCodes } from './recovery-codes.js';
import { startSession, type IssuedToken } from './sessions.js';
import { claimAccount, claimAddress } from './signin-throttle.js';
import { totpStep } from './totp.js';
import { userErrors } from './user-errors.js';
import type { Caller, UserContext } from './user-context.js';
import type { SecondStep } from './user-inputs.js';
import type { User } from './user-repo.js';
import type { SessionMethod } from './signin-methods/index.js';
import type { MethodHooks } from './signin-method.js';

/**
 * Two-step sign-in (docs/users.md, "Second factor"). An account needs a second factor when it
 * has confirmed one, or when it is in a group the runtime setting `secondFactorGroups` names.
 * Then the right password answers no token but `second_factor_required` with a challenge: a
 * random token, kept hashed for `CHALLENGE_LIFETIME_MS`, that names the account. The second
 * step (`token2`, `signin2`) gives the challenge with a TOTP code or a recovery code and gets
 * the session. An account in such a group with no factor yet gets an `enrol` challenge: with it
 * the client asks for a TOTP secret (`totpEnrol`), and the first right code both confirms the
 * secret and signs in, answering the recovery codes too.
 *
 * A wrong code counts as a failed sign-in of the account and the address (signin-throttle.ts),
 * the same counts passwords use; the right password of the first step is counted too until the
 * second step completes, so signing in with the password again never clears the wrong codes.
 */
const CHALLENGE_LIFETIME_MS = 5 * 60_000;

/** `verify`: the account has a factor to check; `enrol`: it must set one up first. */
type ChallengeKind = 'verify' | 'enrol';

/** Whether an administrator requires a second factor of this account (a group of `secondFactorGroups`). */
export async function factorRequired(ctx: UserContext, user: User): Promise<boolean> {
  const groups = (await ctx.runtime()).secondFactorGroups;
  return groups.some((g) => user.groups.includes(g));
}

/** Throws `second_factor_required` with a new challenge when `user` needs a second factor; else nothing. */
export async function challengeIfNeeded(ctx: UserContext, user: User): Promise<void> {
  const totp = await ctx.factors.totpOf(user.id);
  const hasTotp = totp?.confirmed != null;
  if (!hasTotp && !(await factorRequired(ctx, user))) return;
  // A method's second step (a passkey: signin-methods/passkey/) is a factor too: no enrolment then.
  const others: string[] = [];
  for (const m of ctx.methods) if (m.secondStep && (await m.secondStep.has(user))) others.push(m.id);
  const kind: ChallengeKind = hasTotp || others.length > 0 ? 'verify' : 'enrol';
  const challenge = randomToken();
  const now = ctx.clock.now();
  const expires = now + CHALLENGE_LIFETIME_MS;
  await ctx.repo.insertToken({
    tokenHash: hashToken(challenge),
    userId: user.id,
    purpose: 'challenge',
    payload: kind,
    created: now,
    expires,
  });
  const methods = [
    ...(hasTotp ? ['totp'] : []),
    ...(hasTotp && (await ctx.factors.recoveryCodesLeft(user.id)) > 0 ? ['recovery'] : []),
    ...others,
  ];
  throw userErrors.second_factor_required({ body: { challenge, expires, methods, enrol: kind === 'enrol' } });
}

/** The account an unused, unexpired challenge names, and its kind; null for any other token. */
export async function challengedUser(
  ctx: UserContext,
  challenge: string,
): Promise<{ user: User; kind: ChallengeKind } | null> {
  const found = await ctx.repo.pendingToken({ tokenHash: hashToken(challenge) }, 'challenge', ctx.clock.now());
  if (!found) return null;
  const user = await ctx.repo.byId(found.userId);
  if (user?.state !== 'active') return null;
  return { user, kind: found.payload === 'enrol' ? 'enrol' : 'verify' };
}

/** The second step's answer: the session, and the recovery codes when it confirmed a new factor. */
export interface CompletedSignin extends IssuedToken {
  recoveryCodes?: string[];
}

/** The second step: the challenge with a TOTP code or a recovery code gives the session. */
export async function completeSignin(ctx: UserContext, caller: Caller, input: SecondStep): Promise<CompletedSignin> {
  const step: SecondStep = parseInput(ctx.inputs.secondStep, input);
  const { challenge, code, recoveryCode } = step;
  const fromAddress = await claimAddress(ctx, caller.address ?? null);
  const found = await challengedUser(ctx, challenge);
  if (!found) throw userErrors.invalid_token({ fields: [['challenge', 'invalid']] });
  const { user, kind } = found;
  const attempt = await claimAccount(ctx, user);
  const other = ctx.methods.find((m) => m.secondStep && step[m.secondStep.field] !== undefined);
  const method = !attempt.allowed
    ? null
    : other?.secondStep
      ? await checkMethod(user, kind, other.secondStep, step[other.secondStep.field])
      : await checkFactor(ctx, user, kind, code, recoveryCode);
  if (!method) {
    await attempt.failed();
    processStats.signinFailures++;
    throw userErrors.invalid_code();
  }
  // Taken only now, so a mistyped code can be tried again; taking it once keeps two right codes
  // sent in parallel from making two sessions of one challenge.
  if (!(await ctx.repo.takeToken(hashToken(challenge), 'challenge', ctx.clock.now())))
    throw userErrors.invalid_token({ fields: [['challenge', 'invalid']] });
  await attempt.succeeded();
  await fromAddress.succeeded();
  const session = await startSession(ctx, caller, user, method);
  if (kind === 'enrol') return { ...session, recoveryCodes: await confirmTotp(ctx, user) };
  return session;
}

/** A method's answer (a passkey) as the second step of a `verify` challenge: its label, or null when refused. */
async function checkMethod(
  user: User,
  kind: ChallengeKind,
  step: NonNullable<MethodHooks<string, SessionMethod>['secondStep']>,
  answer: unknown,
): Promise<SessionMethod | null> {
  return kind === 'verify' && (await step.verify(user, answer)) ? step.label : null;
}

/** How the code signs in, or null when it does not: TOTP (once per time step) or a recovery code (once). */
async function checkFactor(
  ctx: UserContext,
  user: User,
  kind: ChallengeKind,
  code: string | undefined,
  recoveryCode: string | undefined,
): Promise<SessionMethod | null> {
  if (recoveryCode !== undefined) {
    if (kind !== 'verify') return null;
    const hash = await matchRecoveryCode(await ctx.factors.recoveryCodeHashes(user.id), recoveryCode);
    return hash !== null && (await ctx.factors.takeRecoveryCode(user.id, hash)) ? 'recovery' : null;
  }
  const totp = await ctx.factors.totpOf(user.id);
  // A `verify` challenge checks the confirmed secret; an `enrol` one the secret being set up.
  if (!totp || code === undefined || (kind === 'verify') !== (totp.confirmed !== null)) return null;
  const step = totpStep(totp.secret, code, ctx.clock.now());
  return step !== null && (await ctx.factors.takeTotpStep(user.id, step)) ? 'totp' : null;
}

/** Confirms the account's TOTP secret and answers its new recovery codes (shown once). */
export async function confirmTotp(ctx: UserContext, user: User): Promise<string[]> {
  const codes = newRecoveryCodes();
  await ctx.factors.confirmTotp(user.id, ctx.clock.now(), await hashRecoveryCodes(codes));
  return codes;
}
