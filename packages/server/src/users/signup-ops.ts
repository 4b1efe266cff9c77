import { randomBytes } from 'node:crypto';
import { hashToken, newId, randomName, randomToken } from '../core/ids.js';
import { grantsOf } from '../core/grants.js';
import { commonErrors, isRoostError, type FieldProblem } from '../core/errors.js';
import { parseInput, invalidField } from '../core/validation.js';
import type { PendingReason, UserState } from '../storage/schema.js';
import { generatePassword } from './passwords.js';
import { userErrors } from './user-errors.js';
import { activationMail, passwordMail, reviewNotificationMail } from './user-mails.js';
import { DuplicateUserError, type User } from './user-repo.js';
import { newMailedToken, type Caller, type UserContext } from './user-context.js';
import type { SignupInput, TokenInput } from './user-inputs.js';
import { sendMail } from './account-ops.js';
import type { ProviderProfile } from './provider-clients.js';
import type { AccountSource } from './provider-ops.js';
import { signupAfter, signupHooked, type SignupValues } from './user-hooks.js';

interface AccountValues {
  name: string;
  email: string | null;
  password: string;
  realname?: string | undefined;
  notify?: boolean | undefined;
  data?: string | undefined;
}

/** The length of a `signupUid` name: the seed's 30 bytes, as 30 characters of [a-z0-9]. */
const GENERATED_NAME_LENGTH = 30;

/** The policies whose password the person chose (sendpw's is generated, a provider's random). */
const CHOSEN_PASSWORD = new Set(['direct', 'optin', 'review', 'uid']);

/** Insert an account, answering `exists` for a taken name or email (checked, then enforced by the unique indexes). */
async function createAccount(
  ctx: UserContext,
  values: AccountValues,
  state: UserState,
  pending: PendingReason | null,
  /** Who signs up by which policy: the after-hooks of `user.signup` get their jobs stored with the account. */
  signup?: { caller: Caller; policy: string },
): Promise<User> {
  const problems: FieldProblem[] = [];
  if (await ctx.repo.nameTaken(values.name)) problems.push(['name', 'exists']);
  if (values.email && (await ctx.repo.emailTaken(values.email))) problems.push(['email', 'exists']);
  if (problems.length) throw commonErrors.validation_failure({ fields: problems });
  if (signup && CHOSEN_PASSWORD.has(signup.policy)) await ctx.breaches.refuseBreached(values.password, 'password');
  try {
    const id = newId();
    const after =
      signup &&
      signupAfter(ctx, signup.caller.principal, signup.policy, { id, name: values.name, email: values.email, state });
    return await ctx.repo.insert(
      {
        id,
        name: values.name,
        email: values.email,
        realname: values.realname ?? '',
        passwordHash: await ctx.passwords.hash(values.password),
        data: values.data ?? '',
        notify: values.notify ?? false,
        groups: [],
        state,
        pending,
        created: ctx.clock.now(),
      },
      after,
    );
  } catch (err) {
    if (err instanceof DuplicateUserError) throw invalidField(err.field, 'exists');
    throw err;
  }
}

/** Issue an activation token and mail its link; used by `signupOptin` and `review` `optin`. */
export async function sendActivation(ctx: UserContext, user: User): Promise<void> {
  if (!user.email) throw invalidField('email', 'required');
  const token = await newMailedToken(ctx, user.id, 'activate', ctx.settings.activationLifetimeMs);
  await sendMail(ctx, activationMail(user.email, user.name, (await ctx.runtime()).activationUrl, token));
}

/**
 * An account whose only way in is a mail is removed again when that mail cannot be sent, so the
 * caller can simply try again later instead of finding its name taken.
 */
async function unlessMailFails(ctx: UserContext, user: User, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (err) {
    await ctx.repo.remove(user.id);
    throw err;
  }
}

/** The five sign-up policies and `activate`; each policy is guarded by its own permission. */
export function signupOps(ctx: UserContext) {
  const { inputs } = ctx;

  return {
    async signupDirect(caller: Caller, input: SignupInput): Promise<User> {
      const check = (v: unknown) => parseInput(inputs.signup, v);
      const values = await signupHooked(ctx, caller, 'direct', check(input), check);
      return createAccount(ctx, values, 'active', null, { caller, policy: 'direct' });
    },

    async signupOptin(caller: Caller, input: SignupInput): Promise<User> {
      const check = (v: unknown) => parseInput(inputs.signup, v);
      const values = await signupHooked(ctx, caller, 'optin', check(input), check);
      const user = await createAccount(ctx, values, 'pending', 'optin', { caller, policy: 'optin' });
      await unlessMailFails(ctx, user, () => sendActivation(ctx, user));
      return user;
    },

    async signupReview(caller: Caller, input: SignupInput): Promise<User> {
      const check = (v: unknown) => parseInput(inputs.signup, v);
      const values = await signupHooked(ctx, caller, 'review', check(input), check);
      const user = await createAccount(ctx, values, 'pending', 'review', { caller, policy: 'review' });
      const { adminAddress } = await ctx.runtime();
      if (adminAddress) await sendMail(ctx, reviewNotificationMail(adminAddress, user), caller.principal);
      return user;
    },

    async signupSendpw(caller: Caller, input: SignupInput): Promise<User> {
      const check = (v: unknown) => parseInput(inputs.signupSendpw, v);
      const values = await signupHooked(ctx, caller, 'sendpw', check(input), check);
      const password = generatePassword(randomBytes);
      const user = await createAccount(ctx, { ...values, password }, 'active', null, { caller, policy: 'sendpw' });
      const identity =
        (await ctx.runtime()).identityPolicy === 'email'
          ? { kind: 'email' as const, value: values.email }
          : { kind: 'name' as const, value: user.name };
      await sendMail(ctx, passwordMail(values.email, user.name, password, identity), caller.principal);
      return user;
    },

    async signupUid(caller: Caller, input: SignupInput): Promise<User> {
      // The name is made here: the hooks see it, and may not change it (the policy's schema has none).
      const name = randomName(GENERATED_NAME_LENGTH);
      const check = (v: unknown) => {
        const { email, ...rest } = parseInput(inputs.signupUid, v);
        return { ...rest, email: email ?? null, name };
      };
      const values = await signupHooked(ctx, caller, 'uid', check(input), (v) => {
        const { name: _ignored, ...rest } = v as { name?: unknown };
        return check(rest);
      });
      // Without an email nobody could reset the password, so only the name policy may omit it.
      if (!values.email && (await ctx.runtime()).identityPolicy !== 'name') {
        throw invalidField('email', 'required');
      }
      return createAccount(ctx, values, 'active', null, { caller, policy: 'uid' });
    },

    async activate(_caller: Caller, input: TokenInput): Promise<void> {
      const { token } = parseInput(inputs.token, input);
      const taken = await ctx.repo.takeToken(hashToken(token), 'activate', ctx.clock.now());
      if (!taken) throw userErrors.invalid_token({ fields: [['token', 'invalid']] });
      const user = await ctx.repo.byId(taken.userId);
      if (user?.state !== 'pending') throw userErrors.invalid_token({ fields: [['token', 'invalid']] });
      await ctx.repo.update(user.id, { state: 'active', pending: null });
    },
  };
}

/** The policies a first provider sign-in may follow, in the order `auto` tries them. */
const PROVIDER_POLICIES = ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw', 'signupUid'] as const;
type ProviderPolicy = (typeof PROVIDER_POLICIES)[number];

/** The provider's policy, if the caller holds its permission (`auto`: the first one it holds). */
async function providerPolicy(ctx: UserContext, caller: Caller, provider: AccountSource): Promise<ProviderPolicy> {
  const grants = await grantsOf(ctx.permissions, caller.principal);
  const candidates =
    provider.signup === 'auto' ? PROVIDER_POLICIES : provider.signup === 'off' ? [] : [provider.signup];
  const policy = candidates.find((p) => grants.scope(p) === 'all');
  if (!policy) throw userErrors.signup_closed();
  return policy;
}

/**
 * A free name for a provider's account: the name it suggests (or the email's local part) in
 * the characters names allow, with a few random digits when taken, or a random name.
 */
async function providerAccountName(ctx: UserContext, profile: ProviderProfile): Promise<string> {
  const suggested = profile.username ?? profile.email?.split('@')[0] ?? '';
  const base = suggested.replace(/[^\p{L}\p{N}._-]+/gu, '-').slice(0, 30);
  const nameSchema = ctx.inputs.signup.shape.name;
  for (const candidate of [base, `${base}-${randomName(4)}`, `${base}-${randomName(6)}`]) {
    if (nameSchema.safeParse(candidate).success && !(await ctx.repo.nameTaken(candidate))) return candidate;
  }
  return randomName(GENERATED_NAME_LENGTH);
}

/**
 * A first sign-in through a provider (provider-ops.ts), by the sign-up policies: `signupDirect`
 * and `signupUid` make an active account; `signupOptin` and `signupSendpw` one that is active at
 * once only when the provider says the email is verified, else pending with the activation
 * mail; `signupReview` a pending one, with the notice to the administrators. A policy that is
 * off refuses (`signup_closed`). An account of the same email is joined only when the email is
 * verified and `linkProvidersByEmail` is on; otherwise `email_taken`. The account gets a random
 * password nobody knows (a reset sets one) and is linked to the provider account; when a
 * parallel first sign-in of the same provider account linked first, its account is the one.
 */
export async function signupByProvider(
  ctx: UserContext,
  caller: Caller,
  provider: AccountSource,
  profile: ProviderProfile,
): Promise<User | null> {
  const email = profile.email && ctx.inputs.email.safeParse({ email: profile.email }).success ? profile.email : null;
  const verified = email !== null && profile.emailVerified;
  const link = (user: User) =>
    ctx.links.link({
      provider: provider.id,
      subject: profile.subject,
      userId: user.id,
      email,
      created: ctx.clock.now(),
    });
  const winner = async () => {
    const linked = await ctx.links.linkOf(provider.id, profile.subject);
    return linked ? ctx.repo.byId(linked.userId) : null;
  };
  const owner = email ? await ctx.repo.byEmail(email) : null;
  if (owner) {
    if (!verified || !(await ctx.runtime()).linkProvidersByEmail) throw userErrors.email_taken();
    return (await link(owner)) ? owner : winner();
  }
  const policy = await providerPolicy(ctx, caller, provider);
  const mailed = policy === 'signupOptin' || policy === 'signupSendpw';
  if (mailed && !email)
    throw userErrors.signup_closed({ message: 'The provider gave no email to send the activation to.' });
  // The sign-up's hooks (user-hooks.ts) as for the other policies: they may refuse, or change the
  // name (checked by its schema, taken or not as below) and the real name; the email stays the
  // one the provider vouches for (whether it is verified decides the account's state).
  const hooked = await signupHooked(
    ctx,
    caller,
    'provider',
    { name: await providerAccountName(ctx, profile), email, realname: profile.realname?.slice(0, 255) },
    (v) => {
      const { name, realname } = v as SignupValues;
      return { name: String(name), email, realname: typeof realname === 'string' ? realname.slice(0, 255) : undefined };
    },
  );
  const values = { email: hooked.email, password: randomToken(), realname: hooked.realname };
  const [state, pending]: [UserState, PendingReason | null] =
    policy === 'signupReview' ? ['pending', 'review'] : mailed && !verified ? ['pending', 'optin'] : ['active', null];
  let user: User | undefined;
  const first = ctx.inputs.signup.shape.name.safeParse(hooked.name).success
    ? hooked.name
    : randomName(GENERATED_NAME_LENGTH);
  for (let name = first; !user; name = randomName(GENERATED_NAME_LENGTH)) {
    try {
      user = await createAccount(ctx, { ...values, name }, state, pending, { caller, policy: 'provider' });
    } catch (err) {
      // A parallel first sign-in took the name or the email: its account is the one, once linked;
      // a name taken by anyone else gives way to a random one, and the email, once the name is
      // random, can only have been taken meanwhile (by that parallel sign-in, not linked yet).
      const taken = isRoostError(err) ? err.fields.find(([, reason]) => reason === 'exists')?.[0] : undefined;
      if (!taken) throw err;
      const other = await winner();
      if (other) return other;
      if (taken !== 'name') throw userErrors.email_taken();
    }
  }
  if (!(await link(user))) {
    await ctx.repo.remove(user.id);
    return winner();
  }
  if (user.pending === 'optin') await unlessMailFails(ctx, user, () => sendActivation(ctx, user));
  if (user.pending === 'review') {
    const { adminAddress } = await ctx.runtime();
    if (adminAddress) await sendMail(ctx, reviewNotificationMail(adminAddress, user), caller.principal);
  }
  return user;
}
