import { commonErrors } from '../../../core/errors.js';
import { newId, randomName, randomToken } from '../../../core/ids.js';
import { invalidField, parseInput } from '../../../core/validation.js';
import { startSession, type IssuedToken } from '../../sessions.js';
import { mailEmailVerification, refuseEmailOfAnother } from '../../account-ops.js';
import { signinHooked, signupHooked, type SignupValues } from '../../user-hooks.js';
import { requireUser, type Caller, type UserContext } from '../../user-context.js';
import { DuplicateUserError, type User } from '../../user-repo.js';
import type { SignupInput } from '../../user-inputs.js';
import { anonymousErrors } from './anonymous-errors.js';
import type { AnonymousRepo } from './anonymous-repo.js';

/** A new anonymous account's session, with the account's id and generated name. */
interface AnonymousSignin extends IssuedToken {
  id: string;
  name: string;
}

export type AnonymousOps = {
  /** A new anonymous account and its session, without a form (off until `signinAnonymous` is granted). */
  signinAnonymous(caller: Caller, input: object): Promise<AnonymousSignin>;
  /** The caller's anonymous account becomes a full one in place: a name and a password (an email, a real name). */
  upgradeAnonymous(caller: Caller, input: SignupInput): Promise<void>;
};

/** The method's settings from the boot configuration (`users.anonymous`, index.ts makes them). */
export interface AnonymousSettings {
  perAddress: number;
  windowMs: number;
  max: number;
  sweepAfterMs: number;
}

/** A generated name: `anon-` and 16 random letters and digits (names never hold `@`). */
const ANONYMOUS_NAME_LENGTH = 16;
/** Accounts removed per sweep at most (the hourly purge of services.ts comes back for the rest). */
const SWEEP_BATCH = 500;

/**
 * Anonymous accounts (docs/users.md, "Anonymous accounts"), after Supabase's and Firebase's: an
 * app calls `signinAnonymous` and gets a session of a new account that has no email, no password
 * anyone knows and a generated name. Everything it writes is owned by its user id, so when the
 * person later upgrades it, by `upgradeAnonymous` (a name and a password), by linking a provider
 * or by registering a passkey (both without a re-authentication: an anonymous account has no
 * other way in, user-context.ts `reauthenticate`), the same account keeps its items, files and
 * records. Until then it is in `sys:authenticated` but not in `sys:registered`
 * (core/permissions.ts), and what needs an email or a password is refused (`anonymous_account`,
 * user-context.ts `requireFullUser`). Each client address may make `perAddress` per window
 * (counted in the database: user-repo.ts `countAttempt`), at most `max` exist at once (checked
 * in the account's insert: anonymous-repo.ts `withinCap`), and one unused for `sweepAfterMs`
 * is removed by the hourly purge.
 */
export function anonymousOps(ctx: UserContext, repo: AnonymousRepo, settings: AnonymousSettings) {
  const { clock } = ctx;

  /** Counts one creation from `address`; refused past `perAddress` in the window. */
  async function claimAddress(address: string | null): Promise<void> {
    if (address === null) return;
    const now = clock.now();
    const made = await ctx.repo.countAttempt(`anonymous:${address}`, now, now - settings.windowMs);
    if (made > settings.perAddress)
      throw commonErrors.rate_limited({ retryAfterSeconds: Math.ceil(settings.windowMs / 1000) });
  }

  async function insertAccount(): Promise<User> {
    const account = {
      id: newId(),
      name: `anon-${randomName(ANONYMOUS_NAME_LENGTH)}`,
      email: null,
      realname: '',
      // Nobody knows it: an anonymous account signs in only by its sessions.
      passwordHash: await ctx.passwords.hash(randomToken()),
      data: '',
      notify: false,
      groups: [],
      state: 'active' as const,
      pending: null,
      created: clock.now(),
      anonymous: true,
    };
    return ctx.repo.insert(account, async (handle) => {
      if (!(await repo.withinCap(handle, settings.max))) throw anonymousErrors.anonymous_limit();
    });
  }

  const ops: AnonymousOps = {
    async signinAnonymous(caller) {
      await signinHooked(ctx, caller.principal, 'anonymous', 'create', '');
      await claimAddress(caller.address ?? null);
      const user = await insertAccount();
      return { ...(await startSession(ctx, caller, user, 'anonymous')), id: user.id, name: user.name };
    },

    async upgradeAnonymous(caller, input) {
      const user = requireUser(caller);
      if (!user.anonymous) throw anonymousErrors.not_anonymous();
      const schema = ctx.inputs.signup.partial({ email: true });
      const given = parseInput(schema, input);
      // The sign-up's hooks (user-hooks.ts, policy `anonymous`) as for any new account: an upgrade
      // is how this one gets a name and an email, so a hook that refuses a domain refuses it here.
      const checked = (v: unknown) => {
        const hooked = { ...given, ...(v as SignupValues) };
        const parsed = parseInput(schema, { ...hooked, email: hooked.email ?? undefined });
        return { ...parsed, email: parsed.email ?? null };
      };
      const values = await signupHooked(ctx, caller, 'anonymous', { ...given, email: given.email ?? null }, checked);
      if (values.email) await refuseEmailOfAnother(ctx, user, values.email);
      // One upgrade of an account: a parallel one is told what a later one would be.
      if (!(await repo.claimUpgrade(user.id))) throw anonymousErrors.not_anonymous();
      try {
        await ctx.repo.update(user.id, {
          name: values.name,
          ...(values.realname !== undefined ? { realname: values.realname } : {}),
          ...(values.data !== undefined ? { data: values.data } : {}),
          passwordHash: await ctx.passwords.hash(values.password),
          anonymous: false,
        });
      } catch (err) {
        await repo.releaseUpgrade(user.id);
        if (err instanceof DuplicateUserError) throw invalidField(err.field, 'exists');
        throw err;
      }
      // The address is the account's once the mail to it is answered (`verifyEmail2`), as any
      // account's new address: nobody gets an address they cannot read by upgrading.
      if (values.email)
        await mailEmailVerification(ctx, { ...user, name: values.name }, values.email, caller.principal);
    },
  };

  /** Removes the anonymous accounts unused for `sweepAfterMs`: how many went. */
  async function sweep(now: number): Promise<number> {
    let swept = 0;
    for (const id of await repo.unusedSince(now - settings.sweepAfterMs, SWEEP_BATCH))
      if (await ctx.repo.remove(id)) swept++;
    return swept;
  }

  return { ops, sweep };
}
