import type { Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.js';
import type { SecretBox } from '../../secret-box.js';

/** An account's TOTP secret; `confirmed` is null until a first code was right. */
export interface TotpFactor {
  secret: string;
  created: number;
  confirmed: number | null;
  lastStep: number;
}

/**
 * The table `totp_factors` (migration storage/migrations/2026-11-27-01-second-factor.ts): one
 * secret per account, sealed by `box` (users/secret-box.ts). The one-time rule is a single
 * statement, so parallel callers cannot both pass: a code's time step is taken by moving
 * `last_step` forward only if it is still behind.
 */
export function createTotpRepo(db: Kysely<Database>, box: SecretBox) {
  return {
    async of(userId: string): Promise<TotpFactor | null> {
      const row = await db
        .selectFrom('totp_factors')
        .select(['secret', 'created', 'confirmed', 'last_step'])
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (!row) return null;
      return { secret: box.open(row.secret), created: row.created, confirmed: row.confirmed, lastStep: row.last_step };
    },

    /** A new, unconfirmed secret in place of any earlier one. */
    async put(userId: string, secret: string, created: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
        await trx
          .insertInto('totp_factors')
          .values({ user_id: userId, secret: box.seal(secret), created, confirmed: null, last_step: 0 })
          .execute();
      });
    },

    /** Takes time step `step` of the secret: false when that step or a later one was taken already. */
    async takeStep(userId: string, step: number): Promise<boolean> {
      const result = await db
        .updateTable('totp_factors')
        .set({ last_step: step })
        .where('user_id', '=', userId)
        .where('last_step', '<', step)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async confirm(userId: string, confirmed: number): Promise<void> {
      await db.updateTable('totp_factors').set({ confirmed }).where('user_id', '=', userId).execute();
    },

    async remove(userId: string): Promise<void> {
      await db.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
    },
  };
}

export type TotpRepo = ReturnType<typeof createTotpRepo>;
