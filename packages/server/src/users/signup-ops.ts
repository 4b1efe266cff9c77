import { randomBytes } from 'node:crypto';
import { hashToken, newId, randomName } from '../core/ids.js';
import { commonErrors, type FieldProblem } from '../core/errors.js';
import { parseInput, invalidField } from '../core/validation.js';
import type { PendingReason, UserState } from '../storage/schema.js';
import { generatePassword, hashPassword } from './passwords.js';
import { userErrors } from './user-errors.js';
import { activationMail, passwordMail, reviewNotificationMail } from './user-mails.js';
import { DuplicateUserError, type User } from './user-repo.js';
import { newMailedToken, type Caller, type UserContext } from './user-context.js';
import type { SignupInput, TokenInput } from './user-inputs.js';
import { sendMail } from './account-ops.js';

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

/** Insert an account, answering `exists` for a taken name or email (checked, then enforced by the unique indexes). */
async function createAccount(
  ctx: UserContext,
  values: AccountValues,
  state: UserState,
  pending: PendingReason | null,
): Promise<User> {
  const problems: FieldProblem[] = [];
  if (await ctx.repo.nameTaken(values.name)) problems.push(['name', 'exists']);
  if (values.email && (await ctx.repo.emailTaken(values.email))) problems.push(['email', 'exists']);
  if (problems.length) throw commonErrors.validation_failure({ fields: problems });
  try {
    return await ctx.repo.insert({
      id: newId(),
      name: values.name,
      email: values.email,
      realname: values.realname ?? '',
      passwordHash: await hashPassword(values.password),
      data: values.data ?? '',
      notify: values.notify ?? false,
      groups: [],
      state,
      pending,
      created: ctx.clock.now(),
    });
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
    async signupDirect(_caller: Caller, input: SignupInput): Promise<User> {
      const values = parseInput(inputs.signup, input);
      return createAccount(ctx, values, 'active', null);
    },

    async signupOptin(_caller: Caller, input: SignupInput): Promise<User> {
      const values = parseInput(inputs.signup, input);
      const user = await createAccount(ctx, values, 'pending', 'optin');
      await unlessMailFails(ctx, user, () => sendActivation(ctx, user));
      return user;
    },

    async signupReview(_caller: Caller, input: SignupInput): Promise<User> {
      const values = parseInput(inputs.signup, input);
      const user = await createAccount(ctx, values, 'pending', 'review');
      const { adminAddress } = await ctx.runtime();
      if (adminAddress) await sendMail(ctx, reviewNotificationMail(adminAddress, user));
      return user;
    },

    async signupSendpw(_caller: Caller, input: SignupInput): Promise<User> {
      const values = parseInput(inputs.signupSendpw, input);
      const password = generatePassword(randomBytes);
      const user = await createAccount(ctx, { ...values, password }, 'active', null);
      const identity =
        (await ctx.runtime()).identityPolicy === 'email'
          ? { kind: 'email' as const, value: values.email }
          : { kind: 'name' as const, value: user.name };
      await sendMail(ctx, passwordMail(values.email, user.name, password, identity));
      return user;
    },

    async signupUid(_caller: Caller, input: SignupInput): Promise<User> {
      const values = parseInput(inputs.signupUid, input);
      // Without an email nobody could reset the password, so only the name policy may omit it.
      if (!values.email && (await ctx.runtime()).identityPolicy !== 'name') {
        throw invalidField('email', 'required');
      }
      return createAccount(
        ctx,
        { ...values, email: values.email ?? null, name: randomName(GENERATED_NAME_LENGTH) },
        'active',
        null,
      );
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
