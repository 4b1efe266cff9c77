import type { Clock } from '../core/clock.js';
import type { HookRunner } from '../core/hooks.js';
import type { EventBus } from '../core/events.js';
import { commonErrors } from '../core/errors.js';
import { hashToken, randomToken } from '../core/ids.js';
import { invalidField, parseInput } from '../core/validation.js';
import type { BreachedPasswords } from './breached-passwords.js';
import type { DeviceRepo } from './device-repo.js';
import type { Passwords } from './passwords.js';
import type { ProofOfWork } from './proof-of-work.js';
import type { UserTokenPurpose } from '../storage/schema.js';
import type { QueuingMailer } from '../core/mailer.js';
import type { KeyAuthenticator } from '../core/api-keys.js';
import type { AuditLog } from '../core/audit.js';
import { grantsOf } from '../core/grants.js';
import { ADMINS, type Principal, type ServicePermissions } from '../core/permissions.js';
import { userErrors } from './user-errors.js';
import type { Reauthentication, UserInputs } from './user-inputs.js';
import type { ProviderRepo } from './provider-repo.js';
import type { MethodFigureValues, MethodHooks } from './signin-method.js';
import type { SessionMethod } from './signin-methods/index.js';
import type { ProviderClients } from './provider-clients.js';
import type { ProviderConfig } from '../core/config.js';
import type { User, UserRepo } from './user-repo.js';

/** Who calls an operation: the principal for permission checks, and the account behind it. */
export interface Caller {
  principal: Principal;
  user: User | null;
  /** Hash of the token the caller signed in with, when it did. */
  tokenHash: string | null;
  /** The client's address, given to the operations that throttle by it (sign-in: signin-throttle.ts). */
  address?: string;
  /** The client's User-Agent, given to the operations that start a session (sessions.ts). */
  device?: string;
  /** A solved proof-of-work challenge the client sent (proof-of-work.ts), for the guarded operations. */
  proof?: string;
  /** The token of a device the account trusts (trusted-devices.ts): its sign-ins skip the second factor. */
  trustedDevice?: string;
  /** The administrator's user id when the session is an impersonation (impersonation-ops.ts). */
  impersonator?: string | null;
}

/** Settings fixed at start (boot configuration). */
export interface UserSettings {
  tokenLifetimeMs: number;
  /** A session never lives longer than this from its sign-in, in use or not (sessions.ts). */
  sessionMaxMs: number;
  activationLifetimeMs: number;
  verifyEmailLifetimeMs: number;
  resetLifetimeMs: number;
  lockoutThreshold: number;
  /** The first lock; each one in a row lasts twice as long, up to `lockoutMaxMs`. */
  lockoutMs: number;
  lockoutMaxMs: number;
  /** Failed sign-ins per client address and window before that address is refused. */
  addressFailures: number;
  addressWindowMs: number;
  /** Mails per sending account, and per recipient address, in `mailWindowMs` (mail-limits.ts). */
  mailsPerAccount: number;
  mailsPerRecipient: number;
  mailWindowMs: number;
  /** `<publicUrl>/users/providers`: a provider sends the browser back to `<base>/<id>/callback`. */
  providerCallbackBase: string;
  /** The issuer an authenticator app shows beside the account (the public url's host name). */
  totpIssuer: string;
  /** How long a trusted device skips the second factor (trusted-devices.ts); 0: never. */
  trustedDeviceMs: number;
  /** Mail the account at a sign-in from a device it never signed in from (new-device-mail.ts); null: off. */
  newDeviceMail: { accountUrl: string } | null;
}

/** Settings an administrator may change while Roost runs (core/runtime-settings.ts). */
export interface UserRuntimeSettings {
  identityPolicy: 'name' | 'email' | 'either';
  activationUrl: string;
  verifyEmailUrl: string;
  resetPasswordUrl: string;
  adminAddress: string | undefined;
  /** Members of these groups must sign in with a second factor (signin-challenge.ts). */
  secondFactorGroups: readonly string[];
  /** Sign-in providers (provider-ops.ts), where their sign-ins may end, and linking by email. */
  providers: readonly ProviderConfig[];
  providerRedirects: readonly string[];
  linkProvidersByEmail: boolean;
}

/** Everything the operations share: injected once by `createUserService`. */
export interface UserContext {
  repo: UserRepo;
  /** Provider accounts and provider sign-ins under way (provider-repo.ts). */
  links: ProviderRepo;
  /** The providers' `openid-client` configurations, made once per setting (provider-clients.ts). */
  providerClients: ProviderClients;
  /** The sign-in methods' hooks (signin-method.ts): their second steps, re-authentication, figures and purges. */
  methods: MethodHooks<MethodFigureValues, SessionMethod>[];
  clock: Clock;
  /** Told of the changes the repository does not see as an account's (a signout; core/events.ts). */
  events: EventBus;
  mailer: QueuingMailer;
  permissions: ServicePermissions;
  inputs: UserInputs;
  settings: UserSettings;
  /** Hashes of passwords and recovery codes at the configured cost (passwords.ts). */
  passwords: Passwords;
  /** The devices accounts signed in from (device-repo.ts), for the new-device mail. */
  devices: DeviceRepo;
  /** The proof of work of sign-ups, sign-ins and resets (proof-of-work.ts); asks nothing when off. */
  proofOfWork: ProofOfWork;
  /** The breached-password check of chosen passwords (breached-passwords.ts); passes all when off. */
  breaches: BreachedPasswords;
  /** The runtime settings in force now (cached by the settings store; read them per operation). */
  runtime(): Promise<UserRuntimeSettings>;
  /** The team's hooks on sign-up and sign-in (user-hooks.ts, docs/hooks.md). */
  hooks: HookRunner;
  /**
   * The caller of each session the repository answered: a cached session comes back as the same
   * object on every request, so its caller is made once, not per request (every authenticated
   * request needs one). Callers are frozen: one may serve many requests.
   */
  callers: WeakMap<object, Caller>;
  /** The API keys (keys/): a `roost_` token is theirs to check (core/api-keys.ts); none: keys are refused. */
  keys: KeyAuthenticator | null;
  /** The audit log, for what account-audit.ts does not see (impersonation-ops.ts); none: not recorded. */
  audit: AuditLog | null;
}

/**
 * A new single-use token of `purpose` for a user, kept as its hash with `payload` for
 * `lifetimeMs`; the token itself is answered once. Earlier tokens of that purpose stay (a
 * provider's grants: two devices may sign in at once); `newMailedToken` replaces them.
 */
export async function newUserToken(
  ctx: UserContext,
  userId: string,
  purpose: UserTokenPurpose,
  lifetimeMs: number,
  payload: string | null = null,
): Promise<string> {
  const token = randomToken();
  const now = ctx.clock.now();
  await ctx.repo.insertToken({
    tokenHash: hashToken(token),
    userId,
    purpose,
    payload,
    created: now,
    expires: now + lifetimeMs,
  });
  return token;
}

/**
 * A new single-use token of `purpose` for a user, in place of any earlier one of that purpose
 * (only the newest mail works): kept as its hash with `payload`, for `lifetimeMs`. The token
 * itself goes into a mail and nowhere else.
 */
export async function newMailedToken(
  ctx: UserContext,
  userId: string,
  purpose: UserTokenPurpose,
  lifetimeMs: number,
  payload: string | null = null,
): Promise<string> {
  await ctx.repo.deleteTokens(userId, purpose);
  return newUserToken(ctx, userId, purpose, lifetimeMs, payload);
}

/** The account's password again, before a change of how it signs in: `invalid` at `password` if wrong. */
export async function confirmPassword(ctx: UserContext, user: User, password: string): Promise<void> {
  if (!(await ctx.passwords.verify(user.passwordHash, password))) throw invalidField('password', 'invalid');
}

/**
 * The one re-authentication before a change of how an account signs in (OWASP ASVS 5.0, 7.5.1):
 * the password, or the answer of a method that re-authenticates (`reauthentication` of
 * signin-method.ts: a code of the confirmed authenticator app, each code once), proves the
 * account's owner is there, so a session left open or stolen is not enough to add, remove or
 * replace a way in. Used by signin-methods/ (totp/ and recovery/: removing the authenticator,
 * new recovery codes; passkey/: registering and removing passkeys) and provider-ops.ts (linking
 * and unlinking providers).
 * Refused as `validation_failure`: `required` at `password` without either, `invalid` at the
 * field that is wrong.
 */
export async function reauthenticate(ctx: UserContext, user: User, input: Reauthentication): Promise<void> {
  // An anonymous account has no way in but its sessions (signin-methods/anonymous/): nothing else
  // could prove its owner, and adding a provider or a passkey is how it becomes a full account.
  if (user.anonymous) return;
  const proof: Record<string, string | undefined> = parseInput(ctx.inputs.reauthentication, input);
  if (proof.password !== undefined) return confirmPassword(ctx, user, proof.password);
  for (const { reauthentication: r } of ctx.methods) {
    const answer = r ? proof[r.field] : undefined;
    if (r && answer !== undefined && (await r.verify(user, answer))) return;
  }
  throw invalidField('code', 'invalid');
}

/**
 * An anonymous account (signin-methods/anonymous/) that was given a way in of its own (a linked
 * provider: provider-ops.ts; a passkey: signin-methods/passkey/) is a full account from now on,
 * with the same id, so all it owns stays its own.
 */
export async function upgradedByNewWayIn(ctx: UserContext, userId: string): Promise<void> {
  const user = await ctx.repo.byId(userId);
  if (user?.anonymous) await ctx.repo.update(userId, { anonymous: false });
}

/** The principal of a signed-in user: its own groups; `sys:*` groups are implied by `holds`. */
export function principalOf(user: User): Principal {
  return user.anonymous
    ? { userId: user.id, name: user.name, groups: user.groups, anonymous: true }
    : { userId: user.id, name: user.name, groups: user.groups };
}

/**
 * A program acting as an administrator, with no account behind it: the CLI (cli/user-commands.ts)
 * or a program that embeds Roost (docs/embedding.md). `name` stands where a user id would (items
 * it creates belong to no account).
 */
export function programCaller(name: string): Caller {
  return Object.freeze({
    principal: Object.freeze({ userId: name, name, groups: Object.freeze([ADMINS]) }),
    user: null,
    tokenHash: null,
  });
}

export function requireUser(caller: Caller): User {
  if (!caller.user) throw commonErrors.not_signed_in();
  return caller.user;
}

/**
 * The caller's account, which must be a full one: what needs an email or a password (a mail to
 * the administrators, an email's verification, a password's change) is refused to an anonymous
 * account (signin-methods/anonymous/) with `anonymous_account` until it is upgraded.
 */
export function requireFullUser(caller: Caller): User {
  const user = requireUser(caller);
  if (user.anonymous) throw userErrors.anonymous_account();
  return user;
}

/**
 * Wraps an operation with the check of its permission (named after the operation): an anonymous
 * caller is asked to sign in (401) when a signed-in user could hold the permission; otherwise,
 * and for a signed-in caller, the answer is 403.
 */
export function guarded<R>(
  ctx: UserContext,
  permission: string,
  op: (caller: Caller) => Promise<R>,
): (caller: Caller) => Promise<R>;
export function guarded<I, R>(
  ctx: UserContext,
  permission: string,
  op: (caller: Caller, input: I) => Promise<R>,
): (caller: Caller, input: I) => Promise<R>;
export function guarded(
  ctx: UserContext,
  permission: string,
  op: (caller: Caller, input?: unknown) => Promise<unknown>,
): (caller: Caller, input?: unknown) => Promise<unknown> {
  return async (caller, input) => {
    // An account owns itself: `sys:owner` counts for a signed-in user, not for a program.
    const grants = await grantsOf(ctx.permissions, caller.principal);
    const scope = grants.scope(permission);
    if (scope !== 'all' && !(scope === 'own' && caller.user !== null)) throw grants.refusal(permission);
    return op(caller, input);
  };
}

/** Find an account by identity, as the identity policy says (either: an `@` means email). */
export async function findByIdentity(ctx: UserContext, identity: string): Promise<User | null> {
  const policy = (await ctx.runtime()).identityPolicy;
  const asEmail = policy === 'email' || (policy === 'either' && identity.includes('@'));
  return asEmail ? ctx.repo.byEmail(identity) : ctx.repo.byName(identity);
}

/** The account an administrator names (findForAdmin), or `unknown_user`. */
export async function namedAccount(ctx: UserContext, identity: string): Promise<User> {
  const user = await findForAdmin(ctx, identity);
  if (!user) throw userErrors.unknown_user({ fields: [['identity', 'unknown_user']] });
  return user;
}

/** Administrators name a user by name, email or id, whatever the identity policy. */
export async function findForAdmin(ctx: UserContext, identity: string): Promise<User | null> {
  return (
    (identity.includes('@') ? await ctx.repo.byEmail(identity) : await ctx.repo.byName(identity)) ??
    (await ctx.repo.byId(identity))
  );
}
