import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/**
 * The `signin_keys` table: keys the sign-in makes for itself the first time one is needed and
 * every process then shares (the proof-of-work's HMAC key, proof-of-work.ts), so a challenge
 * given out by one process is checked by another.
 */
export function createSigninKeyRepo(db: Kysely<Database>) {
  return {
    /** The key of `name`: made now (32 random bytes, hex) unless a process made it first. */
    async key(name: string, now: number): Promise<string> {
      const made = randomBytes(32).toString('hex');
      // Two processes may make it at once: the first insert stands, and both read that one.
      await db
        .insertInto('signin_keys')
        .values({ name, value: made, created: now })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await db.selectFrom('signin_keys').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return row.value;
    },
  };
}
