import type { Kysely } from 'kysely';
import type { Database, UserTokenPurpose } from '../storage/schema.js';

/** The `user_tokens` table: mailed and single-use tokens, by their hash (user-context.ts `newUserToken`). */
export function createTokenRepo(db: Kysely<Database>) {
  return {
    // Single-use tokens for activation, email verification and reset.
    async insertToken(t: {
      tokenHash: string;
      userId: string;
      purpose: UserTokenPurpose;
      payload: string | null;
      created: number;
      expires: number;
    }): Promise<void> {
      await db
        .insertInto('user_tokens')
        .values({
          token_hash: t.tokenHash,
          user_id: t.userId,
          purpose: t.purpose,
          payload: t.payload,
          created: t.created,
          expires: t.expires,
        })
        .execute();
    },

    /**
     * Takes a token: deletes it and returns its user id and payload when it existed, had this
     * purpose and had not expired. Deleting first makes a second use fail even when two requests
     * race.
     */
    async takeToken(
      tokenHash: string,
      purpose: UserTokenPurpose,
      now: number,
    ): Promise<{ userId: string; payload: string | null } | null> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('user_tokens')
          .select(['user_id', 'payload', 'expires', 'purpose'])
          .where('token_hash', '=', tokenHash)
          .executeTakeFirst();
        if (!row || row.purpose !== purpose) return null;
        const deleted = await trx.deleteFrom('user_tokens').where('token_hash', '=', tokenHash).executeTakeFirst();
        if (Number(deleted.numDeletedRows) !== 1 || row.expires <= now) return null;
        return { userId: row.user_id, payload: row.payload };
      });
    },

    /**
     * An unused, unexpired token of `purpose`, found by its hash or (the newest) by its user,
     * without taking it (`takeToken` does that).
     */
    async pendingToken(
      by: { tokenHash: string } | { userId: string },
      purpose: UserTokenPurpose,
      now: number,
    ): Promise<{ tokenHash: string; userId: string; payload: string | null } | null> {
      let q = db
        .selectFrom('user_tokens')
        .select(['token_hash', 'user_id', 'payload'])
        .where('purpose', '=', purpose)
        .where('expires', '>', now);
      q = 'tokenHash' in by ? q.where('token_hash', '=', by.tokenHash) : q.where('user_id', '=', by.userId);
      const row = await q.orderBy('created', 'desc').executeTakeFirst();
      return row ? { tokenHash: row.token_hash, userId: row.user_id, payload: row.payload } : null;
    },

    async deleteTokens(userId: string, purpose: UserTokenPurpose): Promise<void> {
      await db.deleteFrom('user_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).execute();
    },
  };
}
