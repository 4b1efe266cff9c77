import type { Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.js';

/**
 * The table `recovery_codes` (migration storage/migrations/2026-11-27-01-second-factor.ts): the
 * argon2id hashes of an account's codes left (recovery-codes.ts). A code is used up by deleting
 * it, one statement, so two parallel uses of one code cannot both pass.
 */
export function createRecoveryRepo(db: Kysely<Database>) {
  return {
    /** Puts `codeHashes` in place of any earlier codes of the account, at once. */
    async replace(userId: string, created: number, codeHashes: readonly string[]): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
        if (codeHashes.length > 0)
          await trx
            .insertInto('recovery_codes')
            .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created })))
            .execute();
      });
    },

    /** The stored hashes of the account's codes left. */
    async hashes(userId: string): Promise<string[]> {
      const rows = await db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', userId).execute();
      return rows.map((r) => r.code_hash);
    },

    async left(userId: string): Promise<number> {
      const row = await db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Uses a code up by its stored hash: false when it is gone already (a parallel use). */
    async take(userId: string, codeHash: string): Promise<boolean> {
      const result = await db
        .deleteFrom('recovery_codes')
        .where('user_id', '=', userId)
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },

    async remove(userId: string): Promise<void> {
      await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    },
  };
}

export type RecoveryRepo = ReturnType<typeof createRecoveryRepo>;
