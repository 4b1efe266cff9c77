import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation } from '../../../storage/database-errors.js';
import type { Database } from '../../../storage/schema.js';

/** A stored WebAuthn credential; `publicKey` and `id` as base64url. */
export interface StoredPasskey {
  id: string;
  userId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  created: number;
  lastUsed: number | null;
}

export type ChallengePurpose = 'register' | 'signin';

const toPasskey = (row: Selectable<Database['passkeys']>): StoredPasskey => ({
  id: row.id,
  userId: row.user_id,
  publicKey: row.public_key,
  counter: Number(row.counter),
  transports: JSON.parse(row.transports) as string[],
  name: row.name,
  created: row.created,
  lastUsed: row.last_used,
});

/**
 * The passkey tables (migration 2026-11-28-02). A challenge is taken once (deleted, answered
 * only when the delete found it), so an assertion cannot be replayed; the counter moves forward
 * in one conditional statement, so two parallel uses of one assertion cannot both pass.
 */
export function createPasskeyRepo(db: Kysely<Database>) {
  return {
    async putChallenge(hash: string, purpose: ChallengePurpose, userId: string | null, expires: number) {
      await db
        .insertInto('passkey_challenges')
        .values({ challenge_hash: hash, purpose, user_id: userId, expires })
        .execute();
    },

    /** Takes a challenge of `purpose` once: its account (null for a sign-in's), or undefined when there is none. */
    async takeChallenge(hash: string, purpose: ChallengePurpose, now: number): Promise<string | null | undefined> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('passkey_challenges')
          .selectAll()
          .where('challenge_hash', '=', hash)
          .executeTakeFirst();
        if (!row) return undefined;
        const gone = await trx.deleteFrom('passkey_challenges').where('challenge_hash', '=', hash).executeTakeFirst();
        if (Number(gone.numDeletedRows) !== 1 || row.expires <= now || row.purpose !== purpose) return undefined;
        return row.user_id;
      });
    },

    /** Stores a new credential: false when its id is stored already (registered twice). */
    async add(p: StoredPasskey): Promise<boolean> {
      try {
        await db
          .insertInto('passkeys')
          .values({
            id: p.id,
            user_id: p.userId,
            public_key: p.publicKey,
            counter: p.counter,
            transports: JSON.stringify(p.transports),
            name: p.name,
            created: p.created,
            last_used: p.lastUsed,
          })
          .execute();
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },

    async byId(id: string): Promise<StoredPasskey | null> {
      const row = await db.selectFrom('passkeys').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toPasskey(row) : null;
    },

    async of(userId: string): Promise<StoredPasskey[]> {
      const rows = await db
        .selectFrom('passkeys')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created')
        .execute();
      return rows.map(toPasskey);
    },

    /**
     * Records a use: the counter moves to `counter` only if it is ahead of the stored one (an
     * authenticator without a counter reports 0 each time, which stays 0). False when not.
     */
    async used(id: string, counter: number, now: number): Promise<boolean> {
      let q = db.updateTable('passkeys').set({ counter, last_used: now }).where('id', '=', id);
      if (counter > 0) q = q.where('counter', '<', counter);
      else q = q.where('counter', '=', 0);
      return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
    },

    async rename(userId: string, id: string, name: string): Promise<boolean> {
      const r = await db
        .updateTable('passkeys')
        .set({ name })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async remove(userId: string, id: string): Promise<boolean> {
      const r = await db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    },

    /** Deletes the expired ceremonies' challenges: how many went. */
    async purgeExpired(now: number): Promise<number> {
      const r = await db.deleteFrom('passkey_challenges').where('expires', '<=', now).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

export type PasskeyRepo = ReturnType<typeof createPasskeyRepo>;
