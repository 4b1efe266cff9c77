import type { Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.js';

/** What a code is for: adding a number, a sign-in by number, a sign-in's second step. */
export type SmsPurpose = 'enrol' | 'signin' | 'step';

/** A code sent, as kept: its hash, the number it went to, wrong tries so far, when it was made and ends. */
export interface SentCode {
  codeHash: string;
  phone: string;
  tries: number;
  expires: number;
}

/**
 * The tables `sms_phones` and `sms_codes` (migration storage/migrations/2026-12-05-01-sms-phones.ts).
 * The one-use rule is a single statement: a code is taken by deleting its row while it is the
 * same code, unexpired and under its tries, so of parallel right answers exactly one deletes it.
 * A wrong answer adds a try in one statement too, so parallel wrong answers all count.
 */
export function createSmsRepo(db: Kysely<Database>) {
  return {
    async phoneOf(userId: string): Promise<{ phone: string | null; pending: string | null } | null> {
      const row = await db
        .selectFrom('sms_phones')
        .select(['phone', 'pending'])
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row ?? null;
    },

    /** The account whose confirmed number is `phone`, if any. */
    async ownerOf(phone: string): Promise<string | null> {
      const row = await db.selectFrom('sms_phones').select('user_id').where('phone', '=', phone).executeTakeFirst();
      return row?.user_id ?? null;
    },

    /** `phone` is being added to the account (beside its confirmed number, until confirmed). */
    async setPending(userId: string, phone: string): Promise<void> {
      await db
        .insertInto('sms_phones')
        .values({ user_id: userId, phone: null, pending: phone, confirmed: null })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ pending: phone }))
        .execute();
    },

    /**
     * The pending number becomes the confirmed one: false when another account confirmed it
     * first (the unique `phone`), or none is pending.
     */
    async confirmPending(userId: string, now: number): Promise<boolean> {
      try {
        const result = await db
          .updateTable('sms_phones')
          .set((eb) => ({ phone: eb.ref('pending'), pending: null, confirmed: now }))
          .where('user_id', '=', userId)
          .where('pending', 'is not', null)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      } catch {
        // The unique index refused it: the number was confirmed by another account meanwhile.
        return false;
      }
    },

    async remove(userId: string): Promise<void> {
      await db.deleteFrom('sms_phones').where('user_id', '=', userId).execute();
      await db.deleteFrom('sms_codes').where('user_id', '=', userId).execute();
    },

    /** A new code in place of the account's earlier one of `purpose`. */
    async putCode(userId: string, purpose: SmsPurpose, code: SentCode, now: number): Promise<void> {
      const values = { code_hash: code.codeHash, phone: code.phone, tries: 0, created: now, expires: code.expires };
      await db
        .insertInto('sms_codes')
        .values({ user_id: userId, purpose, ...values })
        .onConflict((oc) => oc.columns(['user_id', 'purpose']).doUpdateSet(values))
        .execute();
    },

    async codeOf(userId: string, purpose: SmsPurpose): Promise<SentCode | null> {
      const row = await db
        .selectFrom('sms_codes')
        .select(['code_hash', 'phone', 'tries', 'expires'])
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .executeTakeFirst();
      return row ? { codeHash: row.code_hash, phone: row.phone, tries: row.tries, expires: row.expires } : null;
    },

    /** One more wrong answer against the code. */
    async addTry(userId: string, purpose: SmsPurpose, codeHash: string): Promise<void> {
      await db
        .updateTable('sms_codes')
        .set((eb) => ({ tries: eb('tries', '+', 1) }))
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .where('code_hash', '=', codeHash)
        .execute();
    },

    /** Takes the code: true for the one caller that deleted it while it was good. */
    async take(userId: string, purpose: SmsPurpose, codeHash: string, now: number, maxTries: number): Promise<boolean> {
      const result = await db
        .deleteFrom('sms_codes')
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .where('code_hash', '=', codeHash)
        .where('expires', '>', now)
        .where('tries', '<', maxTries)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },

    async purgeExpired(now: number): Promise<number> {
      const result = await db.deleteFrom('sms_codes').where('expires', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type SmsRepo = ReturnType<typeof createSmsRepo>;
