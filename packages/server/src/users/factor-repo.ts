import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SecretBox } from './secret-box.js';

/** An account's TOTP secret; `confirmed` is null until a first code was right. */
export interface TotpFactor {
  secret: string;
  created: number;
  confirmed: number | null;
  lastStep: number;
}

/**
 * The second factors' tables (migration 2026-11-27-01): one TOTP secret per account (sealed by
 * `box`, secret-box.ts) and its recovery codes. The one-time rules are single statements, so
 * parallel callers cannot both pass: a code's time step is taken by moving `last_step` forward
 * only if it is still behind, a recovery code by deleting it.
 */
export function createFactorRepo(db: Kysely<Database>, box: SecretBox) {
  return {
    async totpOf(userId: string): Promise<TotpFactor | null> {
      const row = await db
        .selectFrom('totp_factors')
        .select(['secret', 'created', 'confirmed', 'last_step'])
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (!row) return null;
      return { secret: box.open(row.secret), created: row.created, confirmed: row.confirmed, lastStep: row.last_step };
    },

    /** A new, unconfirmed secret in place of any earlier one (its recovery codes stay until confirmed). */
    async putTotp(userId: string, secret: string, created: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
        await trx
          .insertInto('totp_factors')
          .values({ user_id: userId, secret: box.seal(secret), created, confirmed: null, last_step: 0 })
          .execute();
      });
    },

    /** Takes time step `step` of the secret: false when that step or a later one was taken already. */
    async takeTotpStep(userId: string, step: number): Promise<boolean> {
      const result = await db
        .updateTable('totp_factors')
        .set({ last_step: step })
        .where('user_id', '=', userId)
        .where('last_step', '<', step)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Confirms the secret and puts `codeHashes` in place of any earlier recovery codes, at once. */
    async confirmTotp(userId: string, confirmed: number, codeHashes: readonly string[]): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('totp_factors').set({ confirmed }).where('user_id', '=', userId).execute();
        await replaceCodes(trx, userId, confirmed, codeHashes);
      });
    },

    async replaceRecoveryCodes(userId: string, created: number, codeHashes: readonly string[]): Promise<void> {
      await db.transaction().execute((trx) => replaceCodes(trx, userId, created, codeHashes));
    },

    /** The stored hashes of the account's recovery codes left (recovery-codes.ts). */
    async recoveryCodeHashes(userId: string): Promise<string[]> {
      const rows = await db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', userId).execute();
      return rows.map((r) => r.code_hash);
    },

    async recoveryCodesLeft(userId: string): Promise<number> {
      const row = await db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Uses a recovery code up by its stored hash: false when it is gone already (a parallel use). */
    async takeRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
      const result = await db
        .deleteFrom('recovery_codes')
        .where('user_id', '=', userId)
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },

    /** Removes the TOTP secret and the recovery codes (the user's own removal, an administrator's reset). */
    async removeFactors(userId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
        await trx.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
      });
    },
  };
}

async function replaceCodes(
  trx: Kysely<Database>,
  userId: string,
  created: number,
  codeHashes: readonly string[],
): Promise<void> {
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (codeHashes.length > 0)
    await trx
      .insertInto('recovery_codes')
      .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created })))
      .execute();
}

export type FactorRepo = ReturnType<typeof createFactorRepo>;
