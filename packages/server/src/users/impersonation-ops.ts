import { commonErrors } from '../core/errors.js';
import { administers, backendGrants } from '../core/grants.js';
import { hashToken, randomToken } from '../core/ids.js';
import type { IssuedToken } from './sessions.js';
import { sessionIdOf } from './session-repo.js';
import { principalOf, type Caller, type UserContext } from './user-context.js';
import { userErrors } from './user-errors.js';
import type { User } from './user-repo.js';

/** An impersonation lasts at most an hour (never longer than a session), and is never extended. */
const IMPERSONATION_MS = 3600_000;

/**
 * Impersonation of an account by an administrator (issue 42, item 6; docs/security.md,
 * "Impersonation"): a session of the account that the administrator's browser holds instead of
 * its own for a while, marked with the administrator (`sessions.impersonator`), recorded in the
 * audit log when it starts and ends. The session is the account's: the account's permissions,
 * nothing of the administrator's; the admin backend refuses it (admin/admin-guard.ts). What needs
 * the account's own password or code (re-authentication: changing the password, the email, a
 * second factor) stays out of reach, since the administrator knows neither.
 */
export function impersonationOps(ctx: UserContext) {
  return {
    /** A session of the account `userId` for the administrator `caller`; refuses administrators and oneself. */
    async impersonate(caller: Caller, userId: string): Promise<IssuedToken & { user: User }> {
      backendGrants(caller.principal).require('administer');
      const admin = caller.user;
      if (!admin || caller.impersonator)
        throw commonErrors.not_allowed({ message: 'Only an administrator signed in as themselves may impersonate.' });
      const user = await ctx.repo.byId(userId);
      if (!user) throw userErrors.unknown_user({ fields: [['identity', 'unknown_user']] });
      if (user.id === admin.id || administers(principalOf(user)))
        throw commonErrors.not_allowed({ message: 'An administrator cannot be impersonated, nor can oneself.' });
      if (user.state !== 'active')
        throw userErrors.account_disabled({ message: 'Only an active account can be impersonated.' });
      const now = ctx.clock.now();
      const token = randomToken();
      const tokenHash = hashToken(token);
      const expires = now + Math.min(IMPERSONATION_MS, ctx.settings.tokenLifetimeMs);
      await ctx.repo.insertSession({
        tokenHash,
        userId: user.id,
        method: 'impersonation',
        device: caller.device ?? null,
        address: caller.address ?? null,
        created: now,
        expires,
        impersonator: admin.id,
      });
      await ctx.audit?.record({
        action: 'impersonation.start',
        target: user.name,
        after: { session: sessionIdOf(tokenHash), expires: new Date(expires).toISOString() },
      });
      return { token, expires, user };
    },

    /** Ends the caller's impersonation; answers the administrator's id, to return to their pages. */
    async endImpersonation(caller: Caller): Promise<string> {
      const admin = caller.impersonator ? await ctx.repo.byId(caller.impersonator) : null;
      if (!caller.impersonator || !caller.tokenHash || !caller.user)
        throw commonErrors.not_allowed({ message: 'This session is no impersonation.' });
      await ctx.repo.deleteSession(caller.tokenHash);
      // The administrator ended it, though the session was the account's.
      await ctx.audit?.record(
        { action: 'impersonation.end', target: caller.user.name, before: { session: sessionIdOf(caller.tokenHash) } },
        { id: caller.impersonator, name: admin?.name ?? caller.impersonator, address: caller.address ?? null },
      );
      return caller.impersonator;
    },
  };
}
