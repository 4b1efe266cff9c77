import { hashToken, randomToken } from '../core/ids.js';
import { parseInput } from '../core/validation.js';
import { processStats } from '../core/process-stats.js';
import { startSession, type IssuedToken } from './sessions.js';
import { claimAccount, claimAddress } from './signin-throttle.js';
import { trustDevice, trustedDevice } from './trusted-devices.js';
import { userErrors } from './user-errors.js';
import { signinHooked } from './user-hooks.js';
import type { Caller, UserContext } from './user-context.js';
import type { SecondStep } from './user-inputs.js';
import type { User } from './user-repo.js';
import type { SessionMethod } from './signin-methods/index.js';
import type { FactorConfirmed, MethodHooks } from './signin-method.js';

/**
 * Two-step sign-in (docs/users.md, "Second factor"), the shared rules over the sign-in methods'
 * second steps (users/signin-method.ts, `secondStep`; the methods in signin-methods/index.ts). An
 * account needs a second factor when it has a demanded one (an authenticator app), or when it is
 * in a group the runtime setting `secondFactorGroups` names. Then the right password answers no
 * token but `second_factor_required` with a challenge: a random token, kept hashed for
 * `CHALLENGE_LIFETIME_MS`, that names the account and lists the methods it has. The second step
 * (`token2`, `signin2`) gives the challenge with one method's answer under its field (the app's
 * `code`, a `recoveryCode`, a `passkey`) and gets the session. An account in such a group with
 * no factor yet gets an `enrol` challenge: with it the client sets a factor up (`totpEnrol`), and
 * the first right answer both confirms it and signs in, answering the recovery codes too.
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

/**
 * Throws `second_factor_required` with a new challenge when `user` needs a second factor; else
 * nothing. A device the account trusts (trusted-devices.ts) needs none. `used`: the method whose
 * answer was the first factor (a code by SMS), which neither demands nor answers the second.
 */
export async function challengeIfNeeded(ctx: UserContext, user: User, caller: Caller, used?: string): Promise<void> {
  const methods: string[] = [];
  let demanded = false;
  for (const m of ctx.methods)
    if (m.secondStep && m.id !== used && (await m.secondStep.has(user))) {
      methods.push(m.id);
      demanded ||= m.secondStep.demanded === true;
    }
  if (!demanded && !(await factorRequired(ctx, user))) return;
  if (await trustedDevice(ctx, caller, user)) return;
  // Any factor the account has (a passkey too) is a second step: no enrolment then.
  const kind: ChallengeKind = methods.length > 0 ? 'verify' : 'enrol';
  const challenge = randomToken();
  const now = ctx.clock.now();
  const expires = now + CHALLENGE_LIFETIME_MS;
  await ctx.repo.insertToken({
    tokenHash: hashToken(challenge),
    userId: user.id,
    purpose: 'challenge',
    payload: used ? `${kind}:${used}` : kind,
    created: now,
    expires,
  });
  throw userErrors.second_factor_required({ body: { challenge, expires, methods, enrol: kind === 'enrol' } });
}

/** The account an unused, unexpired challenge names, and its kind; null for any other token. */
export async function challengedUser(
  ctx: UserContext,
  challenge: string,
): Promise<{ user: User; kind: ChallengeKind; used?: string } | null> {
  const found = await ctx.repo.pendingToken({ tokenHash: hashToken(challenge) }, 'challenge', ctx.clock.now());
  if (!found) return null;
  const user = await ctx.repo.byId(found.userId);
  if (user?.state !== 'active') return null;
  const [kind, used] = (found.payload ?? '').split(':');
  return { user, kind: kind === 'enrol' ? 'enrol' : 'verify', ...(used ? { used } : {}) };
}

/**
 * The second step's answer: the session, the recovery codes when it confirmed a new factor, and
 * the device token when it asked to trust the device (trusted-devices.ts).
 */
export interface CompletedSignin extends IssuedToken {
  recoveryCodes?: string[];
  deviceToken?: string;
  deviceExpires?: number;
}

/** The second step: the challenge with a method's answer gives the session. */
export async function completeSignin(ctx: UserContext, caller: Caller, input: SecondStep): Promise<CompletedSignin> {
  const step: SecondStep = parseInput(ctx.inputs.secondStep, input);
  const { challenge } = step;
  const fromAddress = await claimAddress(ctx, caller.address ?? null);
  const found = await challengedUser(ctx, challenge);
  if (!found) throw userErrors.invalid_token({ fields: [['challenge', 'invalid']] });
  const { user, kind, used } = found;
  // The sign-in's hooks (user-hooks.ts): the account is known by its challenge, the answer not yet checked.
  await signinHooked(ctx, caller.principal, 'second-factor', 'answer', user.name);
  const attempt = await claimAccount(ctx, user);
  // The later methods' answers first, as before the methods were plugins (a passkey, then a
  // recovery code, then the app's code), should a client send two.
  const answered = ctx.methods.findLast(
    (m) => m.secondStep && m.id !== used && step[m.secondStep.field] !== undefined,
  )?.secondStep;
  const method = attempt.allowed && answered ? await checkMethod(user, kind, answered, step[answered.field]) : null;
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
  const started = await startSession(ctx, caller, user, method);
  const device = step.trustDevice ? await trustDevice(ctx, user) : null;
  const session = device ? { ...started, deviceToken: device.token, deviceExpires: device.expires } : started;
  if (kind !== 'enrol' || !answered?.enrol) return session;
  await answered.enrol(user);
  return { ...session, ...(await factorConfirmed(ctx, user)) };
}

type SecondStepHooks = NonNullable<MethodHooks<Record<string, number | boolean>, SessionMethod>['secondStep']>;

/**
 * A method's answer as the second step: its label, or null when refused. An `enrol` challenge
 * takes only the answer of a method that can be set up during the sign-in.
 */
async function checkMethod(
  user: User,
  kind: ChallengeKind,
  step: SecondStepHooks,
  answer: unknown,
): Promise<SessionMethod | null> {
  if (kind === 'enrol' && !step.enrol) return null;
  return (await step.verify(user, answer, kind === 'enrol')) ? step.label : null;
}

/** A factor of the account was confirmed: what the methods answer once beside it (the new recovery codes). */
export async function factorConfirmed(ctx: UserContext, user: User): Promise<FactorConfirmed> {
  const answers = await Promise.all(ctx.methods.map((m) => m.factorConfirmed?.(user) ?? {}));
  return Object.assign({}, ...answers);
}

/** Whether the account has a demanded factor (an authenticator app): recovery codes are made only then. */
export async function hasDemandedFactor(ctx: UserContext, user: User): Promise<boolean> {
  for (const m of ctx.methods) if (m.secondStep?.demanded && (await m.secondStep.has(user))) return true;
  return false;
}

/** Removes the account's second factor: what each method keeps of it (the app's secret, the recovery codes). */
export async function removeSecondFactor(ctx: UserContext, user: User): Promise<void> {
  for (const m of ctx.methods) await m.resetFactor?.(user);
  // A device trusted to skip the factor would skip the next one too.
  await ctx.repo.deleteTokens(user.id, 'trusted_device');
}
