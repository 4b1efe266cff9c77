import type { FieldProblem } from '../core/errors.js';
import type { AllowedQuery, PermissionEntry } from '../core/permission-ops.js';
import type { PermissionChange, ServicePermissions } from '../core/permissions.js';
import type { UserDirectory } from '../core/user-directory.js';
import type { UserPage } from './admin-ops.js';
import type {
  LinkedProvider,
  ProviderCallback,
  ProviderInfo,
  ProviderOutcome,
  StartedProviderSignin,
} from './provider-ops.js';
import type { IssuedChallenge } from './proof-of-work.js';
import type { FactorState } from './second-factor-ops.js';
import type { ListedSession } from './session-ops.js';
import type { IssuedToken } from './sessions.js';
import type { CompletedSignin } from './signin-challenge.js';
import type { SigninMethodInputs, SigninMethodOps } from './signin-methods/index.js';
import type { Caller, UserRuntimeSettings, UserSettings } from './user-context.js';
import type {
  Credentials,
  EmailInput,
  GroupQuery,
  IdentityInput,
  ListQuery,
  MessageInput,
  PasswordChange,
  PasswordReset,
  ProfileValues,
  ProviderGrant,
  ProviderStart,
  ProviderUnlink,
  ReviewInput,
  SecondStep,
  SessionRef,
  SignupInput,
  TokenInput,
  UserChange,
  UserInputs,
  UserQuery,
  UserSessionRef,
} from './user-inputs.js';
import type { NewUser, User } from './user-repo.js';

/*
 * The user service's declared type (issue 38, item 6), by area; user-service.ts builds it. Every
 * operation takes the caller and checks the permission of its name (user-permissions.ts; the
 * sign-in methods' in their folders), so adding one means a line here, one there and a row of
 * the protocol table (http/protocol/user-*-protocol.ts).
 */

/** A new account made by a program (`createUser`): only name and password are needed. */
export type NewAccount = Pick<NewUser, 'name'> &
  Partial<Omit<NewUser, 'id' | 'created' | 'passwordHash' | 'name'>> & { password: string };

/** The five ways to sign up, each open to whoever holds the permission of its name. */
export const SIGNUP_POLICIES = ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw', 'signupUid'] as const;
export type SignupPolicy = (typeof SIGNUP_POLICIES)[number];

/**
 * Signing in and out: the password and its second step, mail, providers; tokens into callers.
 * @public (an area of `UserService`, for a program that needs only it)
 */
export interface SigninOps {
  /** Refuses only a caller without the `ping` permission. */
  ping(caller: Caller): Promise<void>;
  /**
   * A proof-of-work challenge for the sign-ups, sign-ins and resets (proof-of-work.ts), and whether
   * they ask for it now; anyone may have one.
   */
  proofChallenge(caller: Caller): Promise<IssuedChallenge>;
  /** A new session for name (or email) and password: its token and expiry (ms). */
  token(caller: Caller, input: Credentials): Promise<IssuedToken>;
  /** `token` under the `signin` permission (the transport puts the token into a cookie). */
  signin(caller: Caller, input: Credentials): Promise<IssuedToken>;
  /** The second step of a sign-in that answered `second_factor_required` (signin-challenge.ts). */
  token2(caller: Caller, input: SecondStep): Promise<CompletedSignin>;
  signin2(caller: Caller, input: SecondStep): Promise<CompletedSignin>;
  /** Sign-in providers (provider-ops.ts): the enabled ones, a sign-in's start and end, links. */
  providers(caller: Caller): Promise<ProviderInfo[]>;
  signinProvider(caller: Caller, input: ProviderStart): Promise<StartedProviderSignin>;
  finishProvider(caller: Caller, input: ProviderCallback): Promise<ProviderOutcome>;
  signinProvider2(caller: Caller, input: ProviderGrant): Promise<IssuedToken>;
  providerLinks(caller: Caller): Promise<LinkedProvider[]>;
  unlinkProvider(caller: Caller, input: ProviderUnlink): Promise<void>;
  signout(caller: Caller): Promise<void>;
  /** The caller of a session's token, or null. */
  authenticate(token: string): Promise<Caller | null>;
  /**
   * Ends the session of `token` when it is a valid one, as `signout` would: a new cookie sign-in
   * ends the session the browser's cookie carried (http/auth.ts, `startCookieSession`).
   */
  endSession(token: string): Promise<void>;
}

/**
 * The second factor as a whole (second-factor-ops.ts); each method's operations are in `SigninMethodOps`.
 * @public (an area of `UserService`)
 */
export interface FactorOps {
  secondFactor(caller: Caller): Promise<FactorState>;
  userFactors(caller: Caller, input: IdentityInput): Promise<FactorState>;
  resetSecondFactor(caller: Caller, input: IdentityInput): Promise<void>;
}

/**
 * Sessions, the own and (for administrators) any account's (session-ops.ts).
 * @public (an area of `UserService`)
 */
export interface SessionOps {
  sessions(caller: Caller): Promise<ListedSession[]>;
  revokeSession(caller: Caller, input: SessionRef): Promise<void>;
  revokeOtherSessions(caller: Caller): Promise<void>;
  userSessions(caller: Caller, input: IdentityInput): Promise<ListedSession[]>;
  revokeUserSessions(caller: Caller, input: UserSessionRef): Promise<void>;
}

/**
 * The own account, signing up and activating it (account-ops.ts, signup-ops.ts).
 * @public (an area of `UserService`)
 */
export interface AccountOps {
  identity(caller: Caller): Promise<User>;
  name(caller: Caller): Promise<{ name: string; realname: string }>;
  profile(caller: Caller): Promise<User>;
  authenticated(caller: Caller, input: GroupQuery): Promise<boolean>;
  allowed(caller: Caller, input: AllowedQuery): Promise<Map<string, boolean>>;
  /** A new account by one of the five policies; the account as stored (pending, for optin and review). */
  signup(caller: Caller, policy: SignupPolicy, input: SignupInput): Promise<User>;
  activate(caller: Caller, input: TokenInput): Promise<void>;
  update(caller: Caller, input: ProfileValues): Promise<void>;
  updatePassword(caller: Caller, input: PasswordChange): Promise<void>;
  updateEmail(caller: Caller, input: EmailInput): Promise<void>;
  verifyEmail(caller: Caller, input: EmailInput): Promise<void>;
  verifyEmail2(caller: Caller, input: TokenInput): Promise<void>;
  resetPassword(caller: Caller, input: IdentityInput): Promise<void>;
  resetPassword2(caller: Caller, input: PasswordReset): Promise<void>;
  message(caller: Caller, input: MessageInput): Promise<void>;
  disable(caller: Caller): Promise<void>;
  delete(caller: Caller): Promise<void>;
}

/**
 * What administrators call on any account, and the service's permission entries (admin-ops.ts).
 * @public (an area of `UserService`)
 */
export interface AdminOps {
  review(caller: Caller, input: ReviewInput): Promise<void>;
  getUser(caller: Caller, input: IdentityInput): Promise<User>;
  setUser(caller: Caller, input: UserChange): Promise<void>;
  removeUser(caller: Caller, input: IdentityInput): Promise<void>;
  list(caller: Caller, input: UserQuery): Promise<UserPage>;
  identities(caller: Caller, input: UserQuery): Promise<UserPage>;
  permissionEntries(caller: Caller): Promise<PermissionEntry[]>;
  changePermissions(
    caller: Caller,
    input: { permissions: PermissionChange | readonly PermissionChange[] },
  ): Promise<PermissionEntry[]>;
}

/**
 * What the composition, the pages, the CLI and embedding programs use beside the operations.
 * @public (an area of `UserService`)
 */
export interface ProgramOps {
  /** Ids of names and names of ids, for the stores (core/user-directory.ts). */
  directory: UserDirectory;
  /** The operations' input schemas, the methods' too (the protocol documents them). */
  inputs: UserInputs & SigninMethodInputs;
  settings: UserSettings;
  runtime(): Promise<UserRuntimeSettings>;
  permissions: ServicePermissions;
  /** A caller acting as this account, as if it had signed in (a program that embeds Roost). */
  callerFor(user: User): Caller;
  /**
   * For the CLI, the admin pages and embedding programs: create an account without mail, as
   * given (check it with `checkNewAccount` first), for a caller that administers
   * (`backendGrants`, core/grants.ts: an administrator, or a program's `programCaller`).
   * Active, in no group, with an empty profile unless said otherwise.
   */
  createUser(caller: Caller, values: NewAccount): Promise<User>;
  /**
   * An administrator's impersonation of an account (users/impersonation-ops.ts): a session of the
   * account for at most an hour, recorded in the audit log; never of an administrator.
   */
  impersonate(caller: Caller, userId: string): Promise<{ token: string; expires: number; user: User }>;
  /** Ends the caller's impersonation session; answers the administrator's user id. */
  endImpersonation(caller: Caller): Promise<string>;
  /** The shape problems of a new account's name, email and password (the sign-up rules). */
  checkNewAccount(values: { name: string; email: string; password: string }): FieldProblem[];
  /** Whether an active administrator exists (the start's first-run hint, the setup page). */
  hasAdministrator(): Promise<boolean>;
  /**
   * Internal, for the CLI (`roost user list`), the composition and embedding programs: every
   * account of a query, unchecked. The pages read accounts with `list` and `getUser`, which
   * check the caller (test/admin/admin-user-grants.test.ts).
   */
  listUsers(query: ListQuery, size: number): Promise<{ users: User[]; total: number }>;
  /** Internal, as `listUsers`: the account named by name, email or id (as administrators name them), or null. */
  findUser(identity: string): Promise<User | null>;
  /**
   * Deletes expired sessions, tokens and the methods' expired rows: for a caller that
   * administers (core/grants.ts; the tools page, and the hourly purge of services.ts as a program).
   */
  purgeExpired(caller: Caller): Promise<number>;
}

/** The user identity service (user-service.ts), with the sign-in methods' operations (signin-methods/index.ts). */
export interface UserService
  extends SigninOps,
    FactorOps,
    SessionOps,
    AccountOps,
    AdminOps,
    ProgramOps,
    SigninMethodOps {}
