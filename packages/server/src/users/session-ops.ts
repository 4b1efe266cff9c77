import { parseInput } from '../core/validation.js';
import { adminTarget } from './second-factor-ops.js';
import { userErrors } from './user-errors.js';
import { requireUser, type Caller, type UserContext } from './user-context.js';
import type { IdentityInput, SessionRef, UserSessionRef } from './user-inputs.js';
import { sessionIdOf, type SessionInfo } from './user-repo.js';

/** A session as listed: `current` marks the one of the request. */
export interface ListedSession extends SessionInfo {
  current: boolean;
}

/**
 * The sessions of an account: its user lists them (how each was signed into, the device and
 * address it started from, when it was created and last used) and ends one or all the others;
 * administrators do the same for any account. Ending a session tells its streams (the
 * `account.signed_out` event: realtime/hub.ts checks their tokens again and closes them).
 */
export function sessionOps(ctx: UserContext) {
  const { repo, clock } = ctx;

  async function list(userId: string, currentHash: string | null): Promise<ListedSession[]> {
    const current = currentHash === null ? null : sessionIdOf(currentHash);
    return (await repo.sessionsOf(userId, clock.now())).map((s) => ({ ...s, current: s.id === current }));
  }

  async function end(userId: string, id: string): Promise<void> {
    if (!(await repo.deleteSessionById(userId, id))) throw userErrors.unknown_session();
    ctx.events.emit({ kind: 'account.signed_out', userId });
  }

  async function endAll(userId: string, keep?: string): Promise<void> {
    await repo.deleteSessions(userId, keep);
    ctx.events.emit({ kind: 'account.signed_out', userId });
  }

  return {
    sessions: (caller: Caller): Promise<ListedSession[]> => list(requireUser(caller).id, caller.tokenHash),

    async revokeSession(caller: Caller, input: SessionRef): Promise<void> {
      const { session } = parseInput(ctx.inputs.sessionRef, input);
      await end(requireUser(caller).id, session);
    },

    /** Ends every session of the account but the caller's own. */
    async revokeOtherSessions(caller: Caller): Promise<void> {
      await endAll(requireUser(caller).id, caller.tokenHash ?? undefined);
    },

    async userSessions(_caller: Caller, input: IdentityInput): Promise<ListedSession[]> {
      return list((await adminTarget(ctx, input)).id, null);
    },

    /** For administrators: ends one session of an account (`session`), or all of them. */
    async revokeUserSessions(_caller: Caller, input: UserSessionRef): Promise<void> {
      const { identity, session } = parseInput(ctx.inputs.userSessionRef, input);
      const user = await adminTarget(ctx, { identity });
      if (session === undefined) await endAll(user.id);
      else await end(user.id, session);
    },
  };
}
