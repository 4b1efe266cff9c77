import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../../storage/schema.js';

/** The row whose lock makes the cap's count and the new account one step (`holdCap`). */
const CAP_LOCK = 'anonymous-cap';

/**
 * The anonymous accounts' queries, over the service's own `users`, `sessions` and
 * `throttle_counts` (their flag is the `users.anonymous` column, migration 2026-12-03-07).
 */
export function createAnonymousRepo(db: Kysely<Database>) {
  return {
    /**
     * Inside the transaction that inserted an anonymous account (user-repo.ts `insert`, its
     * `alongside`): whether the anonymous accounts, that one counted, are at most `max`. The
     * upsert of one row first takes its lock, so parallel creations count one after the other
     * (PostgreSQL reads each statement's committed rows; SQLite runs one transaction at a time):
     * the cap holds under a burst.
     */
    async withinCap(handle: object, max: number): Promise<boolean> {
      const trx = handle as Transaction<Database>;
      await trx
        .insertInto('throttle_counts')
        .values({ key: CAP_LOCK, window_start: 0, count: 0 })
        .onConflict((oc) => oc.column('key').doUpdateSet({ count: sql<number>`throttle_counts.count` }))
        .execute();
      const row = await trx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('anonymous', '=', 1)
        .executeTakeFirstOrThrow();
      return Number(row.n) <= max;
    },

    /**
     * Takes the account's anonymous flag for an upgrade: true for one caller only, so of parallel
     * upgrades one goes on (the others find it a full account). `release` gives the flag back
     * when the upgrade is refused after all (a name taken meanwhile).
     */
    async claimUpgrade(id: string): Promise<boolean> {
      const done = await db
        .updateTable('users')
        .set({ anonymous: 0 })
        .where('id', '=', id)
        .where('anonymous', '=', 1)
        .executeTakeFirst();
      return Number(done.numUpdatedRows) === 1;
    },
    async releaseUpgrade(id: string): Promise<void> {
      await db.updateTable('users').set({ anonymous: 1 }).where('id', '=', id).execute();
    },

    /**
     * Anonymous accounts unused since `before` (at most `limit`): made before it, no sign-in after
     * it (`activity`), and no session used after it (sessions keep their last use to five minutes).
     */
    async unusedSince(before: number, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('users')
        .select('id')
        .where('anonymous', '=', 1)
        .where('created', '<', before)
        .where((eb) => eb.or([eb('activity', 'is', null), eb('activity', '<', before)]))
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('sessions')
                .select('sessions.user_id')
                .whereRef('sessions.user_id', '=', 'users.id')
                .where('sessions.last_used', '>=', before),
            ),
          ),
        )
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },
  };
}

export type AnonymousRepo = ReturnType<typeof createAnonymousRepo>;
