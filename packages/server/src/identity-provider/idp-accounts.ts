import { isRoostError } from '../core/errors.js';
import type { RequestCaller } from '../http/auth.js';
import { programCaller, type SESSION_LABELS, type User, type UserService } from '../users/index.js';

/**
 * The sessions whose sign-in passed a second factor: the labels of the methods' second steps
 * (users/signin-methods/: the authenticator app, a code by SMS, a recovery code, a passkey, which
 * counts as two factors only with user verification, users/signin-methods/passkey/). Typed by the
 * labels, so a renamed one fails to compile here; a new method's second step is added here too.
 */
const SECOND_FACTOR_SESSIONS: ReadonlySet<string> = new Set<keyof typeof SESSION_LABELS>([
  'totp',
  'smsStep',
  'recovery',
  'passkey',
]);

/** Whether the browser's Roost session may sign in to another application now, and as whom. */
export type SigninState = { kind: 'absent' } | { kind: 'refused'; reason: string } | { kind: 'ready'; user: User };

/**
 * The rules of Roost's own sign-in, applied again before a code is issued (docs/users.md, "Roost
 * as an identity provider"): a session of the browser's cookie (a token sent by a program is no
 * browser sign-in); no impersonation (an administrator acting as someone must not sign in to
 * other applications as them); no anonymous account; and when the account needs a second factor now (a group of
 * `secondFactorGroups`, or an authenticator app or a phone it has: users/signin-challenge.ts
 * `challengeIfNeeded`), a session that passed one: a session signed into before its group
 * came to require one must sign in again.
 */
export async function signinState(users: UserService, caller: RequestCaller): Promise<SigninState> {
  if (!caller.user || caller.via !== 'cookie') return { kind: 'absent' };
  if (caller.impersonator) return { kind: 'refused', reason: 'An impersonation cannot sign in to other applications.' };
  // Anybody may make one where an app offers guest accounts (users/signin-methods/anonymous/),
  // whatever the sign-up policy: it is no account an application should let in.
  if (caller.user.anonymous)
    return {
      kind: 'refused',
      reason: 'An anonymous account cannot sign in to other applications: make it a full account first.',
    };
  const factor = await users.secondFactor(caller);
  // The factors that make a password alone not enough (`demanded` in their signin-methods/ folder).
  if (factor.required || factor.totp || factor.sms) {
    const current = (await users.sessions(caller)).find((s) => s.current);
    if (!current || !SECOND_FACTOR_SESSIONS.has(current.method))
      return {
        kind: 'refused',
        reason:
          'Your account needs a second factor, and this session was signed into without one. ' +
          'Sign out, then sign in again with your second factor.',
      };
  }
  return { kind: 'ready', user: caller.user };
}

/**
 * The active account of an id (the `sub` of tokens), or null: a removed or disabled account has
 * no claims and its codes exchange for nothing. Read by name through the user directory, then
 * checked by id (an administrator's lookup takes a name first, and a name may look like an id).
 */
export function accountReader(users: UserService): (id: string) => Promise<User | null> {
  const caller = programCaller('identity-provider');
  return async (id) => {
    const name = await users.directory.nameOf(id);
    if (name === null) return null;
    try {
      const user = await users.getUser(caller, { identity: name });
      return user.id === id && user.state === 'active' ? user : null;
    } catch (err) {
      if (isRoostError(err) && err.code === 'unknown_user') return null;
      throw err;
    }
  };
}
