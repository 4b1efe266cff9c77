import { z } from 'zod';
import { isWellFormed, looseBoolean, looseInt, requiredText, stringList } from '../core/validation.js';

/**
 * The input shape of every user operation, with the seed's field reasons (`required`,
 * `too short`, `too long`, `invalid_email`). Rules about other rows (a taken name) are checked by
 * the service. The same schemas describe the operations in /openapi.json.
 */
export interface UserLimits {
  nameMinLength: number;
  passwordMinLength: number;
  dataMaxLength: number;
}

const NAME_MAX = 40;
const PASSWORD_MAX = 256;
const EMAIL_MAX = 254;
const MESSAGE_MAX = 5000;
const SESSION_ID_MAX = 32;
const PROVIDER_ID_MAX = 32;
const REDIRECT_MAX = 2000;

/** Names are letters, digits, `.`, `_` and `-`: never an `@`, so a name is never an email. */
const NAME_CHARS = /^[\p{L}\p{N}._-]+$/u;

/**
 * A name that fits the rule made from any text (SCIM's `userName`, often an email address:
 * scim/scim-user-ops.ts): each other character becomes `_`, cut at the longest name.
 */
export function accountNameFrom(text: string): string {
  const chars = [...text.normalize('NFC')].map((c) => (NAME_CHARS.test(c) ? c : '_'));
  return chars.slice(0, NAME_MAX).join('');
}

/**
 * `secondStepFields`: the sign-in methods' answers a second step may carry (their
 * `secondStepInput`, users/signin-method.ts: the app's `code`, a `recoveryCode`, a `passkey`).
 */
export function createUserInputs(limits: UserLimits, secondStepFields: Readonly<Record<string, z.ZodType>> = {}) {
  const name = requiredText(NAME_MAX, limits.nameMinLength).refine((s) => NAME_CHARS.test(s), { message: 'invalid' });
  const email = requiredText(EMAIL_MAX).pipe(z.email());
  const password = requiredText(PASSWORD_MAX, limits.passwordMinLength);
  const realname = z.string().max(255).refine(isWellFormed, { message: 'invalid' });
  const data = z
    .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .transform((d) => (typeof d === 'string' ? d : JSON.stringify(d)))
    .pipe(z.string().max(limits.dataMaxLength).refine(isWellFormed, { message: 'invalid' }));
  const token = requiredText(200);
  const identity = requiredText(EMAIL_MAX);
  /**
   * The password, or a current TOTP code, asked again before a change of how the account signs
   * in (signin-methods/: totp/, recovery/, passkey/; provider-ops.ts; `reauthenticate` in user-context.ts).
   */
  const proof = { password: requiredText(PASSWORD_MAX).optional(), code: z.string().trim().max(20).optional() };
  const proven = (o: { password?: string; code?: string }) => o.password !== undefined || o.code !== undefined;
  const proofRequired = { message: 'required', path: ['password'] };

  const profileExtras = { realname: realname.optional(), notify: looseBoolean.optional(), data: data.optional() };

  const listQuery = z.object({
    active: looseBoolean.optional(),
    pending: looseBoolean.optional(),
    name: z.string().max(NAME_MAX).optional(),
    email: z.string().max(EMAIL_MAX).optional(),
    search: z.string().max(EMAIL_MAX).optional(),
    group: z.string().max(100).optional(),
    start: looseInt.pipe(z.number().min(1)).default(1),
    size: looseInt.pipe(z.number().min(0)).optional(),
    sort: z.enum(['name', 'email', 'realname', 'activity', 'created']).default('name'),
    order: z.enum(['<', '>']).default('<'),
  });

  return {
    credentials: z.object({ identity, password: requiredText(PASSWORD_MAX) }),
    signup: z.object({ name, email, password, ...profileExtras }),
    signupSendpw: z.object({ name, email, ...profileExtras }),
    signupUid: z.object({ password, email: email.optional(), ...profileExtras }),
    token: z.object({ token }),
    authenticated: z.object({ groups: stringList.optional(), group: stringList.optional() }),
    update: z.object(profileExtras),
    updatePassword: z.object({ password: requiredText(PASSWORD_MAX), newpassword: password }),
    email: z.object({ email }),
    identity: z.object({ identity }),
    resetPassword2: z.object({ token, newpassword: password }),
    message: z.object({ message: requiredText(MESSAGE_MAX) }),
    review: z.object({ identity, action: requiredText(20) }),
    setUser: z.object({
      identity,
      values: z
        .object({
          name: name.optional(),
          email: email.optional(),
          password: password.optional(),
          groups: stringList.pipe(z.array(z.string().min(1).max(100)).max(100)).optional(),
          active: looseBoolean.optional(),
          pending: looseBoolean.optional(),
          ...profileExtras,
        })
        .strict(),
    }),
    list: listQuery,
    secondStep: z
      .object({
        challenge: token,
        /** Trust this device: its next sign-ins skip the second factor (trusted-devices.ts). */
        trustDevice: looseBoolean.optional(),
        ...Object.fromEntries(Object.entries(secondStepFields).map(([field, schema]) => [field, schema.optional()])),
      })
      .refine((o) => otherAnswer(o, secondStepFields), {
        message: 'required',
        path: ['code'],
      }),
    reauthentication: z.object(proof).refine(proven, proofRequired),
    sessionRef: z.object({ session: requiredText(SESSION_ID_MAX) }),
    userSessionRef: z.object({ identity, session: requiredText(SESSION_ID_MAX).optional() }),
    providerUnlink: z.object({ provider: requiredText(PROVIDER_ID_MAX), ...proof }).refine(proven, proofRequired),
    providerStart: z.object({
      provider: requiredText(PROVIDER_ID_MAX),
      redirect: requiredText(REDIRECT_MAX),
      link: looseBoolean.optional(),
      // Linking binds a new way to sign in: the proof again, checked by `reauthenticate`
      // (user-context.ts; a plain sign-in needs none, nor does an anonymous account's link).
      ...proof,
    }),
    providerGrant: z.object({ grant: token }),
  };
}

/** Whether a second step carries the answer of one of the methods' fields. */
const otherAnswer = (o: Record<string, unknown>, fields: Readonly<Record<string, unknown>>) =>
  Object.keys(fields).some((field) => o[field] !== undefined);

export type UserInputs = ReturnType<typeof createUserInputs>;
export type ListQuery = z.output<UserInputs['list']>;

/*
 * What callers pass to the user service's operations (user-service.ts). The schemas above check
 * every call against them, and also take the text forms a query string carries (`notify=true`,
 * `start=2`): the original protocol's adapter (http/protocol/user-protocol.ts) hands its values
 * over as they came.
 */

/** A name or an email, as the identity policy lets users sign in (administrators may also give an id). */
export interface IdentityInput {
  identity: string;
}

export interface Credentials extends IdentityInput {
  password: string;
}

/** The profile fields a user sets freely; `data` is text, or JSON kept as its text. */
export interface ProfileValues {
  realname?: string;
  notify?: boolean;
  data?: string | Record<string, unknown> | unknown[];
}

/** A sign-up: which fields a policy needs is its schema's (`signup`, `signupSendpw`, `signupUid`). */
export interface SignupInput extends ProfileValues {
  name?: string;
  email?: string;
  password?: string;
}

/** A mailed token: activation, email verification. */
export interface TokenInput {
  token: string;
}

/** Groups of which the caller must be in one (either field, one name or a list). */
export interface GroupQuery {
  groups?: string | readonly string[];
  group?: string | readonly string[];
}

export interface PasswordChange {
  /** The current password. */
  password: string;
  newpassword: string;
}

export interface EmailInput {
  email: string;
}

export interface PasswordReset extends TokenInput {
  newpassword: string;
}

export interface MessageInput {
  message: string;
}

export interface ReviewInput extends IdentityInput {
  /** accept, optin, activate, reject or disable (admin-ops.ts, REVIEW_ACTIONS). */
  action: string;
}

/** What an administrator changes of an account (`active: true` also clears a lock). */
export interface UserValues extends ProfileValues {
  name?: string;
  email?: string;
  password?: string;
  groups?: string | readonly string[];
  active?: boolean;
  pending?: boolean;
}

export interface UserChange extends IdentityInput {
  values: UserValues;
}

/** A page of accounts: filters, then `start` (from 1), `size` (at most USER_PAGE.max), sort and order. */
export interface UserQuery {
  active?: boolean;
  pending?: boolean;
  name?: string;
  email?: string;
  /** In name, email or real name. */
  search?: string;
  group?: string;
  start?: number;
  size?: number;
  sort?: 'name' | 'email' | 'realname' | 'activity' | 'created';
  order?: '<' | '>';
}

/** The second step of a sign-in: the challenge of the first, with a sign-in method's answer. */
export interface SecondStep {
  challenge: string;
  /**
   * A sign-in method's answer under its field (`code`: the app's code, `recoveryCode`, `passkey`:
   * the browser's answer to `passkeySigninOptions`).
   */
  [methodField: string]: unknown;
}

/**
 * The password, or a current TOTP code: asked again before a change of how the account signs in
 * (a confirmed factor, a passkey, a linked provider).
 */
export interface Reauthentication {
  password?: string;
  code?: string;
}

/** A session by its public id (`sessions` lists them). */
export interface SessionRef {
  session: string;
}

/** An account's session, or (without `session`) all its sessions. */
export interface UserSessionRef extends IdentityInput {
  session?: string;
}

/** A sign-in provider by its id (`providers` lists them). */
export interface ProviderRef {
  provider: string;
}

/** A linked provider to unlink, with the password or a current code again. */
export interface ProviderUnlink extends ProviderRef, Reauthentication {}

/**
 * The start of a provider sign-in, or, with `link`, of linking one to the signed-in account
 * (which needs the password or a current code again).
 */
export interface ProviderStart extends ProviderRef, Reauthentication {
  /** Where the browser goes at the end: a path of Roost's pages, or an address of `providerRedirects`. */
  redirect: string;
  link?: boolean;
}

/** The one-time grant a provider sign-in hands to an app, for `signinProvider2`. */
export interface ProviderGrant {
  grant: string;
}
