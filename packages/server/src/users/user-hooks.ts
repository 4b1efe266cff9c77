import type { Principal } from '../core/permissions.js';
import type { Caller, UserContext } from './user-context.js';

/**
 * The user service's hook points (issue 40, docs/hooks.md), merged into core/hooks.ts's open
 * maps. A sign-up's hooks get the new account's values but its password (`input`: name, email,
 * real name, data, which they may change) and the policy; a sign-in's get the method and the
 * identity given, before the credentials are checked, and may refuse it.
 */
declare module '../core/hooks.js' {
  interface HookPoints {
    'user.signup': { policy: string; input: SignupValues };
    'user.signin': { method: string; step: string; input: { identity: string } };
  }
  interface AfterHookPoints {
    'user.signup': { policy: string; user: SignedUp };
  }
}

/** A new account as a sign-up's after-hooks get it. */
export interface SignedUp {
  id: string;
  name: string;
  email: string | null;
  /** `active`, or `pending` (an opt-in mail to answer, a review to pass). */
  state: string;
}

/** What a sign-up's hooks see and may change. */
export interface SignupValues {
  name: string;
  email: string | null;
  realname?: string | undefined;
  data?: string | undefined;
}

/**
 * The values of a sign-up after its before-hooks (the password, which they never see, kept),
 * checked again by the policy's input schema (`check`): a hook cannot make an account the
 * sign-up rules refuse.
 */
export async function signupHooked<V extends SignupValues>(
  ctx: UserContext,
  caller: Caller,
  policy: string,
  values: V,
  check: (values: unknown) => V,
): Promise<V> {
  if (!ctx.hooks.has('user.signup')) return values;
  const input: SignupValues = { name: values.name, email: values.email, realname: values.realname, data: values.data };
  const hooked = await ctx.hooks.before('user.signup', {
    point: 'user.signup',
    caller: caller.principal,
    policy,
    input,
  });
  return check({ ...values, ...pick(hooked.input) });
}

/** Only the members a hook may change, whatever it returned. */
function pick(input: SignupValues): SignupValues {
  return { name: input.name, email: input.email, realname: input.realname, data: input.data };
}

/**
 * The before-hooks of a step of a sign-in by `method` with `identity` (empty where the step has
 * none: a mailed link's token), before its credentials are checked.
 */
export async function signinHooked(
  ctx: UserContext,
  caller: Principal,
  method: string,
  step: string,
  identity: string,
): Promise<void> {
  if (!ctx.hooks.has('user.signin')) return;
  await ctx.hooks.before('user.signin', { point: 'user.signin', caller, method, step, input: { identity } });
}

/**
 * What stores a new account's after-hook jobs with it (user-repo.ts `insert`'s `alongside`), or
 * undefined when the point has none (the insert then needs no transaction).
 */
export function signupAfter(
  ctx: UserContext,
  caller: Principal,
  policy: string,
  user: SignedUp,
): ((handle: object) => Promise<void>) | undefined {
  if (!ctx.hooks.hasAfter('user.signup')) return undefined;
  return (handle) => ctx.hooks.after('user.signup', { point: 'user.signup', caller, policy, user }, handle);
}
