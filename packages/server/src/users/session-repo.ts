import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SessionMethod } from './signin-methods/index.js';
import type { User } from './user-repo.js';
import { toUser } from './user-rows.js';

export interface NewSession {
  tokenHash: string;
  userId: string;
  method: SessionMethod;
  device: string | null;
  address: string | null;
  created: number;
  expires: number;
  /** The administrator impersonating the account (users/impersonation-ops.ts); absent for a sign-in. */
  impersonator?: string;
}

/** A session as its user and administrators see it: never its token or the token's hash. */
export interface SessionInfo {
  id: string;
  method: string;
  device: string;
  address: string;
  created: number;
  lastUsed: number;
  expires: number;
}

/** A session's account as `authenticate` needs it. */
export interface FoundSession {
  user: User;
  expires: number;
  lastUsed: number;
  /** The sign-in: the session's expiry never moves past `created` + `sessionMaxMs`. */
  created: number;
  /** The administrator's user id when the session is an impersonation, else null. */
  impersonator: string | null;
}

/**
 * A session's public id: the first 16 characters (96 bits) of its token's hash. It names the
 * session to its user and administrators; neither the token nor the whole hash can be had from it.
 */
export const sessionIdOf = (tokenHash: string): string => tokenHash.slice(0, 16);

/** The `sessions` table (users/sessions.ts, session-ops.ts); user-repo.ts joins it to the accounts' repository. */
export function createSessionRepo(db: Kysely<Database>) {
  return {
    // Sessions: only the SHA-256 of a token is stored.
    async insertSession(session: NewSession): Promise<void> {
      await db
        .insertInto('sessions')
        .values({
          token_hash: session.tokenHash,
          id: sessionIdOf(session.tokenHash),
          user_id: session.userId,
          method: session.method,
          device: session.device,
          address: session.address,
          created: session.created,
          expires: session.expires,
          last_used: session.created,
          impersonator: session.impersonator ?? null,
        })
        .execute();
    },

    async sessionUser(tokenHash: string, now: number): Promise<FoundSession | null> {
      const row = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .selectAll('users')
        .select([
          'sessions.expires as session_expires',
          'sessions.last_used as session_last_used',
          'sessions.created as session_created',
          'sessions.impersonator as session_impersonator',
        ])
        .where('sessions.token_hash', '=', tokenHash)
        .where('sessions.expires', '>', now)
        .executeTakeFirst();
      if (!row) return null;
      const { session_expires, session_last_used, session_created, session_impersonator, ...user } = row;
      return {
        user: toUser(user),
        expires: session_expires,
        lastUsed: session_last_used ?? 0,
        created: session_created,
        impersonator: session_impersonator,
      };
    },

    /** Marks a session used at `lastUsed` and, when given, moves its expiry. */
    async touchSession(tokenHash: string, lastUsed: number, expires?: number): Promise<void> {
      await db
        .updateTable('sessions')
        .set(expires === undefined ? { last_used: lastUsed } : { last_used: lastUsed, expires })
        .where('token_hash', '=', tokenHash)
        .execute();
    },

    /** A user's sessions that have not expired, the most recently used first. */
    async sessionsOf(userId: string, now: number): Promise<SessionInfo[]> {
      const rows = await db
        .selectFrom('sessions')
        .select(['id', 'method', 'device', 'address', 'created', 'last_used', 'expires'])
        .where('user_id', '=', userId)
        .where('expires', '>', now)
        .orderBy('last_used', 'desc')
        .orderBy('id')
        .execute();
      return rows.map((r) => ({
        id: r.id,
        method: r.method,
        device: r.device ?? '',
        address: r.address ?? '',
        created: r.created,
        lastUsed: r.last_used ?? r.created,
        expires: r.expires,
      }));
    },

    /** Ends one session of a user by its public id; false when the user has no such session. */
    async deleteSessionById(userId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('sessions')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async deleteSession(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },

    /**
     * Revokes every session of a user but `keep` (the caller's own, when it changes its password),
     * and every device it trusted (users/trusted-devices.ts): whatever ended the sessions (a new
     * password, a reset, a disabled account, signing out the other devices) ends those too.
     */
    async deleteSessions(userId: string, keep?: string): Promise<void> {
      let q = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (keep) q = q.where('token_hash', '!=', keep);
      await q.execute();
      await db
        .deleteFrom('user_tokens')
        .where('user_id', '=', userId)
        .where('purpose', '=', 'trusted_device')
        .execute();
    },
  };
}
