import { ADMINS } from '../core/permissions.js';
import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import type { QueuingMailer } from '../core/mailer.js';
import { newId } from '../core/ids.js';
import type { FieldProblem } from '../core/errors.js';
import { fieldProblems } from '../core/validation.js';
import { ANONYMOUS, servicePermissions, type PermissionStore } from '../core/permissions.js';
import type { RuntimeSettings, RuntimeSettingsService } from '../core/runtime-settings.js';
import type { ChangeFeed } from '../storage/change-feed.js';
import type { Database } from '../storage/schema.js';
import { accountOps } from './account-ops.js';
import { hashPassword } from './passwords.js';
import { adminOps } from './admin-ops.js';
import { signupOps } from './signup-ops.js';
import { authenticate } from './sessions.js';
import {
  findForAdmin,
  guarded,
  type Caller,
  type Operation,
  type UserContext,
  type UserRuntimeSettings,
  type UserSettings,
} from './user-context.js';
import { createUserInputs } from './user-inputs.js';
import { USER_PERMISSION_DEFAULTS } from './user-permissions.js';
import { createUserRepo, type NewUser } from './user-repo.js';
import { withSessionCache } from './session-cache.js';

export interface UserServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: QueuingMailer;
  permissionStore: PermissionStore;
  /** Identity policy, page urls and administrator address, changeable at run time. */
  runtimeSettings: RuntimeSettingsService;
  config: Config;
  /** How other server processes learn of signouts and account changes (PostgreSQL); none on SQLite. */
  changes?: ChangeFeed | null;
}

export const ANONYMOUS_CALLER: Caller = Object.freeze({ principal: ANONYMOUS, user: null, tokenHash: null });

function settingsFrom(config: Config): UserSettings {
  const u = config.users;
  return {
    tokenLifetimeMs: u.tokenLifetimeSeconds * 1000,
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
  };
}

/**
 * The user identity service: `run(operation, caller, input)` checks the operation's permission
 * and runs it; `authenticate` turns a token into a caller. Nothing here knows HTTP.
 */
export function createUserService(deps: UserServiceDeps) {
  // Derived once per settings snapshot (the runtime settings hand out the same object while cached).
  const runtimeViews = new WeakMap<RuntimeSettings, UserRuntimeSettings>();
  const ctx: UserContext = {
    repo: withSessionCache(
      createUserRepo(deps.db),
      deps.clock,
      deps.config.users.sessionCacheSeconds * 1000,
      deps.changes ?? null,
    ),
    clock: deps.clock,
    mailer: deps.mailer,
    permissions: servicePermissions(deps.permissionStore, 'users', USER_PERMISSION_DEFAULTS),
    inputs: createUserInputs(deps.config.users),
    settings: settingsFrom(deps.config),
    runtime: async () => {
      const s = await deps.runtimeSettings.current();
      let view = runtimeViews.get(s);
      if (!view) {
        view = runtimeFrom(deps.config, s);
        runtimeViews.set(s, view);
      }
      return view;
    },
  };
  const all = { ...accountOps(ctx), ...signupOps(ctx), ...adminOps(ctx) };
  const operations: Record<string, Operation> = {};
  for (const [name, op] of Object.entries(all)) operations[name] = guarded(ctx, name, op);
  // `signin` is `token` by another name; the transport puts the token into a cookie.
  operations.signin = guarded(ctx, 'signin', all.token as Operation);

  return {
    inputs: ctx.inputs,
    settings: ctx.settings,
    runtime: ctx.runtime,
    permissions: ctx.permissions,
    /** Run an operation by its wire name; throws RoostError on every refusal. */
    run(name: string, caller: Caller, input: Record<string, unknown>): Promise<Record<string, unknown>> {
      const op = operations[name];
      if (!op) throw new TypeError(`no user operation ${name}`);
      return op(caller, input);
    },
    has: (name: string) => name in operations,
    authenticate: (token: string) => authenticate(ctx, token),
    /** For the CLI and the admin pages: create an account without any permission check. */
    async createUser(values: Omit<NewUser, 'id' | 'created' | 'passwordHash'> & { password: string }) {
      const { password, ...rest } = values;
      return ctx.repo.insert({
        ...rest,
        id: newId(),
        created: ctx.clock.now(),
        passwordHash: await hashPassword(password),
      });
    },
    /** The shape problems of a new account's name, email and password (the sign-up rules). */
    checkNewAccount(values: { name: string; email: string; password: string }): FieldProblem[] {
      const parsed = ctx.inputs.signup.safeParse(values);
      return parsed.success ? [] : fieldProblems(parsed.error);
    },
    /** Whether an active administrator exists (the start's first-run hint, the setup page). */
    hasAdministrator: () => ctx.repo.hasActiveMember(ADMINS),
    listUsers: (query: Parameters<typeof ctx.repo.list>[0], size: number) => ctx.repo.list(query, size),
    /** For the admin pages: the account named by name, email or id (as administrators name them), or null. */
    findUser: (identity: string) => findForAdmin(ctx, identity),
    purgeExpired: () => ctx.repo.purgeExpired(ctx.clock.now()),
  };
}

export type UserService = ReturnType<typeof createUserService>;
