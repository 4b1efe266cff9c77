import { ADMINS } from '../core/permissions.js';
import type { KeyAuthenticator } from '../core/api-keys.js';
import type { AuditLog } from '../core/audit.js';
import { administers, backendGrants } from '../core/grants.js';
import { commonErrors } from '../core/errors.js';
import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import { NO_HOOKS, type HookRunner } from '../core/hooks.js';
import type { Config } from '../core/config.js';
import type { SmsQueue } from '../core/sms.js';
import type { QueuingMailer } from '../core/mailer.js';
import { newId } from '../core/ids.js';
import type { FieldProblem } from '../core/errors.js';
import { fieldProblems } from '../core/validation.js';
import { ANONYMOUS, servicePermissions, type PermissionStore } from '../core/permissions.js';
import type { RuntimeSettings, RuntimeSettingsService } from '../core/runtime-settings.js';
import type { CacheFeed } from '../core/cache.js';
import type { Database } from '../storage/schema.js';
import { accountOps } from './account-ops.js';
import { createBreachedPasswords } from './breached-passwords.js';
import { createDeviceRepo } from './device-repo.js';
import { createPasswords } from './passwords.js';
import { createProofOfWork } from './proof-of-work.js';
import { createSigninKeyRepo } from './signin-key-repo.js';
import { adminOps } from './admin-ops.js';
import { impersonationOps } from './impersonation-ops.js';
import { signupOps } from './signup-ops.js';
import { secondFactorOps } from './second-factor-ops.js';
import { sessionOps } from './session-ops.js';
import { providerOps } from './provider-ops.js';
import { createProviderRepo } from './provider-repo.js';
import { createProviderClients } from './provider-clients.js';
import { SIGNIN_METHODS, type SigninMethodInputs, type SigninMethodOps } from './signin-methods/index.js';
import type { MethodOps } from './signin-method.js';
import { completeSignin } from './signin-challenge.js';
import { authenticate } from './sessions.js';
import {
  findForAdmin,
  guarded,
  principalOf,
  type Caller,
  type UserContext,
  type UserRuntimeSettings,
  type UserSettings,
} from './user-context.js';
import { createUserInputs, type SecondStep, type SignupInput } from './user-inputs.js';
import { USER_PERMISSION_DEFAULTS } from './user-permissions.js';
import { createUserRepo, type User } from './user-repo.js';
import type { NewAccount, SignupPolicy, UserService } from './user-service-type.js';
import { withSessionCache } from './session-cache.js';
import { withAccountEvents } from './account-events.js';
import { withAccountAudit } from './account-audit.js';
import { createUserDirectory } from './user-directory.js';
import type { EventBus } from '../core/events.js';

export interface UserServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: QueuingMailer;
  permissionStore: PermissionStore;
  /** Identity policy, page urls and administrator address, changeable at run time. */
  runtimeSettings: RuntimeSettingsService;
  config: Config;
  /** How other server processes learn of signouts and account changes (PostgreSQL); none on SQLite. */
  changes?: CacheFeed | null;
  /** Told of every committed change to an account (core/events.ts). */
  events: EventBus;
  /** The team's hooks on sign-up and sign-in (user-hooks.ts); none by default. */
  hooks?: HookRunner;
  /** The API keys, which `authenticate` hands `roost_` tokens to (core/api-keys.ts); none: refused. */
  keys?: KeyAuthenticator;
  /** Where every change of an account is recorded (account-audit.ts); none: not recorded. */
  audit?: AuditLog;
  /** The queue texts leave by (sms/sms-queue.ts); none: codes by SMS answer `sms_unavailable`. */
  sms?: SmsQueue | null;
}

export const ANONYMOUS_CALLER: Caller = Object.freeze({ principal: ANONYMOUS, user: null, tokenHash: null });

function settingsFrom(config: Config): UserSettings {
  const u = config.users;
  return {
    tokenLifetimeMs: u.tokenLifetimeSeconds * 1000,
    sessionMaxMs: u.sessionMaxLifetimeSeconds * 1000,
    activationLifetimeMs: u.activationLifetimeSeconds * 1000,
    verifyEmailLifetimeMs: u.verifyEmailLifetimeSeconds * 1000,
    resetLifetimeMs: u.resetLifetimeSeconds * 1000,
    lockoutThreshold: u.lockoutThreshold,
    lockoutMs: u.lockoutSeconds * 1000,
    lockoutMaxMs: Math.max(u.lockoutSeconds, u.lockoutMaxSeconds) * 1000,
    addressFailures: config.rateLimit.signinFailures,
    addressWindowMs: config.rateLimit.signinFailureWindowSeconds * 1000,
    mailsPerAccount: config.rateLimit.mailsPerAccount,
    mailsPerRecipient: config.rateLimit.mailsPerRecipient,
    mailWindowMs: config.rateLimit.mailWindowSeconds * 1000,
    totpIssuer: new URL(config.publicUrl).hostname,
    providerCallbackBase: `${config.publicUrl}/users/providers`,
    trustedDeviceMs: u.trustedDeviceDays * 24 * 3600 * 1000,
    newDeviceMail: u.newDeviceMail ? { accountUrl: `${config.publicUrl}/users/account` } : null,
  };
}

/** The user service's view of the runtime settings: a url left unset is Roost's own page. */
function runtimeFrom(config: Config, s: RuntimeSettings): UserRuntimeSettings {
  const page = (path: string) => `${config.publicUrl}/users/${path}`;
  return {
    identityPolicy: s.identityPolicy,
    activationUrl: s.activationUrl ?? page('activate'),
    verifyEmailUrl: s.verifyEmailUrl ?? page('verify-email'),
    resetPasswordUrl: s.resetPasswordUrl ?? page('reset-password'),
    adminAddress: s.adminAddress ?? undefined,
    secondFactorGroups: s.secondFactorGroups,
    providers: s.providers,
    providerRedirects: s.providerRedirects,
    linkProvidersByEmail: s.linkProvidersByEmail,
  };
}

/**
 * The user identity service. Every operation takes the caller, checks the permission named
 * after it (user-permissions.ts) and throws a RoostError on every refusal; inputs are checked by
 * the service's schemas (user-inputs.ts). `authenticate` turns a token into a caller. Nothing
 * here knows HTTP: the original protocol's answers are made in http/protocol/user-protocol.ts.
 */
export function createUserService(deps: UserServiceDeps): UserService {
  // Derived once per settings snapshot (the runtime settings hand out the same object while cached).
  const runtimeViews = new WeakMap<RuntimeSettings, UserRuntimeSettings>();
  const stored = createUserRepo(deps.db);
  const ctx: UserContext = {
    links: createProviderRepo(deps.db),
    providerClients: createProviderClients(),
    methods: [],
    repo: withAccountAudit(
      withAccountEvents(
        withSessionCache(stored, deps.clock, deps.config.users.sessionCacheSeconds * 1000, deps.changes ?? null),
        deps.events,
      ),
      deps.audit ?? null,
    ),
    events: deps.events,
    clock: deps.clock,
    mailer: deps.mailer,
    permissions: servicePermissions(deps.permissionStore, 'users', {
      ...USER_PERMISSION_DEFAULTS,
      ...Object.assign({}, ...SIGNIN_METHODS.map((m) => m.permissions)),
    }),
    inputs: createUserInputs(
      deps.config.users,
      Object.assign({}, ...SIGNIN_METHODS.map((m) => m.secondStepInput ?? {})),
    ),
    settings: settingsFrom(deps.config),
    passwords: createPasswords(deps.config.users.passwordHashing),
    breaches: createBreachedPasswords(deps.config.users.breachedPasswords),
    devices: createDeviceRepo(deps.db),
    proofOfWork: createProofOfWork(
      deps.config.users.proofOfWork,
      { countAttempt: stored.countAttempt, key: createSigninKeyRepo(deps.db).key },
      deps.clock,
    ),
    runtime: async () => {
      const s = await deps.runtimeSettings.current();
      let view = runtimeViews.get(s);
      if (!view) {
        view = runtimeFrom(deps.config, s);
        runtimeViews.set(s, view);
      }
      return view;
    },
    callers: new WeakMap(),
    keys: deps.keys ?? null,
    audit: deps.audit ?? null,
    hooks: deps.hooks ?? NO_HOOKS,
  };
  const account = accountOps(ctx);
  const signups = signupOps(ctx);
  const admin = adminOps(ctx);
  const factors = secondFactorOps(ctx);
  const sessions = sessionOps(ctx);
  const impersonation = impersonationOps(ctx);
  const providers = providerOps(ctx);
  // Each method made once: its hooks join the context, its operations the service (guarded by name).
  const methodOps: MethodOps = {};
  for (const method of SIGNIN_METHODS) {
    const { ops, hooks } = method.create(ctx, { db: deps.db, config: deps.config, sms: deps.sms ?? null });
    ctx.methods.push(hooks);
    for (const [name, op] of Object.entries(ops as MethodOps)) methodOps[name] = guarded(ctx, name, op);
  }
  const policies: Record<SignupPolicy, (caller: Caller, input: SignupInput) => Promise<User>> = {
    signupDirect: guarded(ctx, 'signupDirect', signups.signupDirect),
    signupOptin: guarded(ctx, 'signupOptin', signups.signupOptin),
    signupReview: guarded(ctx, 'signupReview', signups.signupReview),
    signupSendpw: guarded(ctx, 'signupSendpw', signups.signupSendpw),
    signupUid: guarded(ctx, 'signupUid', signups.signupUid),
  };

  return {
    /** Ids of names and names of ids, for the stores (core/user-directory.ts). */
    directory: createUserDirectory({
      repo: stored,
      clock: deps.clock,
      events: deps.events,
      feed: deps.changes ?? null,
      ttlMs: deps.config.users.sessionCacheSeconds * 1000,
    }),
    inputs: { ...ctx.inputs, ...(Object.assign({}, ...SIGNIN_METHODS.map((m) => m.inputs)) as SigninMethodInputs) },
    settings: ctx.settings,
    runtime: ctx.runtime,
    permissions: ctx.permissions,
    /** Refuses only a caller without the `ping` permission. */
    ping: guarded(ctx, 'ping', account.ping),
    proofChallenge: () => ctx.proofOfWork.challenge(),
    /** A new session for name (or email) and password: its token and expiry (ms). */
    token: guarded(ctx, 'token', account.token),
    /** `token` under the `signin` permission (the transport puts the token into a cookie). */
    signin: guarded(ctx, 'signin', account.token),
    /** The second step of a sign-in that answered `second_factor_required` (signin-challenge.ts). */
    token2: guarded(ctx, 'token2', (caller: Caller, input: SecondStep) => completeSignin(ctx, caller, input)),
    signin2: guarded(ctx, 'signin2', (caller: Caller, input: SecondStep) => completeSignin(ctx, caller, input)),
    /** Sign-in providers (provider-ops.ts): the enabled ones, a sign-in's start and end, links. */
    providers: guarded(ctx, 'providers', providers.providers),
    signinProvider: guarded(ctx, 'signinProvider', providers.signinProvider),
    finishProvider: guarded(ctx, 'signinProvider', providers.finishProvider),
    signinProvider2: guarded(ctx, 'signinProvider2', providers.signinProvider2),
    providerLinks: guarded(ctx, 'providerLinks', providers.providerLinks),
    unlinkProvider: guarded(ctx, 'unlinkProvider', providers.unlinkProvider),
    secondFactor: guarded(ctx, 'secondFactor', factors.secondFactor),
    userFactors: guarded(ctx, 'userFactors', factors.userFactors),
    resetSecondFactor: guarded(ctx, 'resetSecondFactor', factors.resetSecondFactor),
    sessions: guarded(ctx, 'sessions', sessions.sessions),
    revokeSession: guarded(ctx, 'revokeSession', sessions.revokeSession),
    revokeOtherSessions: guarded(ctx, 'revokeOtherSessions', sessions.revokeOtherSessions),
    userSessions: guarded(ctx, 'userSessions', sessions.userSessions),
    revokeUserSessions: guarded(ctx, 'revokeUserSessions', sessions.revokeUserSessions),
    signout: guarded(ctx, 'signout', account.signout),
    identity: guarded(ctx, 'identity', account.identity),
    name: guarded(ctx, 'name', account.name),
    profile: guarded(ctx, 'profile', account.profile),
    authenticated: guarded(ctx, 'authenticated', account.authenticated),
    allowed: guarded(ctx, 'allowed', account.allowed),
    /** A new account by one of the five policies; the account as stored (pending, for optin and review). */
    async signup(caller: Caller, policy: SignupPolicy, input: SignupInput) {
      await ctx.proofOfWork.demand(caller);
      return policies[policy](caller, input);
    },
    activate: guarded(ctx, 'activate', signups.activate),
    update: guarded(ctx, 'update', account.update),
    updatePassword: guarded(ctx, 'updatePassword', account.updatePassword),
    updateEmail: guarded(ctx, 'updateEmail', account.updateEmail),
    verifyEmail: guarded(ctx, 'verifyEmail', account.verifyEmail),
    verifyEmail2: guarded(ctx, 'verifyEmail2', account.verifyEmail2),
    resetPassword: guarded(ctx, 'resetPassword', account.resetPassword),
    resetPassword2: guarded(ctx, 'resetPassword2', account.resetPassword2),
    message: guarded(ctx, 'message', account.message),
    disable: guarded(ctx, 'disable', account.disable),
    delete: guarded(ctx, 'delete', account.delete),
    review: guarded(ctx, 'review', admin.review),
    getUser: guarded(ctx, 'getUser', admin.getUser),
    setUser: guarded(ctx, 'setUser', admin.setUser),
    removeUser: guarded(ctx, 'removeUser', admin.removeUser),
    list: guarded(ctx, 'list', admin.list),
    identities: guarded(ctx, 'identities', admin.identities),
    permissionEntries: guarded(ctx, 'getPermissions', admin.getPermissions),
    changePermissions: guarded(ctx, 'setPermissions', admin.setPermissions),
    authenticate: (token: string) => authenticate(ctx, token),
    /**
     * Ends the session of `token` when it is a valid one, as `signout` would: a new cookie sign-in
     * ends the session the browser's cookie carried (http/auth.ts, `startCookieSession`).
     */
    async endSession(token: string): Promise<void> {
      const caller = await authenticate(ctx, token);
      if (caller) await account.signout(caller);
    },
    /** A caller acting as this account, as if it had signed in (a program that embeds Roost). */
    callerFor: (user: User): Caller => ({ principal: principalOf(user), user, tokenHash: null }),
    /**
     * For the CLI, the admin pages and embedding programs: create an account without mail, as
     * given (check it with `checkNewAccount` first), for a caller that administers
     * (`backendGrants`, core/grants.ts: an administrator, or a program's `programCaller`).
     * Active, in no group, with an empty profile unless said otherwise.
     */
    impersonate: impersonation.impersonate,
    endImpersonation: impersonation.endImpersonation,
    async createUser(caller: Caller, values: NewAccount): Promise<User> {
      backendGrants(caller.principal).require('administer');
      await ctx.breaches.refuseBreached(values.password, 'password');
      return ctx.repo.insert({
        id: newId(),
        name: values.name,
        email: values.email ?? null,
        realname: values.realname ?? '',
        data: values.data ?? '',
        notify: values.notify ?? false,
        groups: values.groups ?? [],
        state: values.state ?? 'active',
        pending: values.pending ?? null,
        created: ctx.clock.now(),
        passwordHash: await ctx.passwords.hash(values.password),
      });
    },
    /** The shape problems of a new account's name, email and password (the sign-up rules). */
    checkNewAccount(values: { name: string; email: string; password: string }): FieldProblem[] {
      const parsed = ctx.inputs.signup.safeParse(values);
      return parsed.success ? [] : fieldProblems(parsed.error);
    },
    /** Whether an active administrator exists (the start's first-run hint, the setup page). */
    hasAdministrator: () => ctx.repo.hasActiveMember(ADMINS),
    /**
     * Internal, for the CLI (`roost user list`), the composition and embedding programs: every
     * account of a query, unchecked. The pages read accounts with `list` and `getUser`, which
     * check the caller (test/admin/admin-user-grants.test.ts).
     */
    listUsers: (query: Parameters<typeof ctx.repo.list>[0], size: number) => ctx.repo.list(query, size),
    /** Internal, as `listUsers`: the account named by name, email or id (as administrators name them), or null. */
    findUser: (identity: string) => findForAdmin(ctx, identity),
    /**
     * Deletes expired sessions, tokens and the methods' expired rows: for a caller that
     * administers (core/grants.ts; the tools page, and the hourly purge of services.ts as a program).
     */
    async purgeExpired(caller: Caller): Promise<number> {
      if (!administers(caller.principal)) throw commonErrors.not_allowed();
      const now = ctx.clock.now();
      let purged = await ctx.repo.purgeExpired(now);
      for (const m of ctx.methods) purged += (await m.purgeExpired?.(now)) ?? 0;
      return purged;
    },
    /** The sign-in methods' operations (signin-methods/index.ts). */
    ...(methodOps as SigninMethodOps),
  };
}
