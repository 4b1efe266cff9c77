import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** The `throttle_counts` table: failed sign-ins per client address and window (signin-throttle.ts). */
export function createThrottleRepo(db: Kysely<Database>) {
  return {
    /**
     * Count one attempt under `key` in the window starting `windowStart` or later (an older
     * window starts again), in one statement so that parallel attempts each count; the count
     * after this one.
     */
    async countAttempt(key: string, now: number, windowStart: number): Promise<number> {
      const row = await db
        .insertInto('throttle_counts')
        .values({ key, window_start: now, count: 1 })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            count: sql<number>`case when throttle_counts.window_start < ${windowStart}
              then 1 else throttle_counts.count + 1 end`,
            window_start: sql<number>`case when throttle_counts.window_start < ${windowStart}
              then ${now} else throttle_counts.window_start end`,
          }),
        )
        .returning('count')
        .executeTakeFirstOrThrow();
      // A new window: forget the keys whose windows have passed (the table stays small).
      if (row.count === 1)
        await db
          .deleteFrom('throttle_counts')
          .where('window_start', '<', windowStart)
          .where('key', 'like', `${key.split(':')[0]}:%`)
          .execute();
      return row.count;
    },

    /** Give an attempt back (a successful sign-in: only failures count). */
    async refundAttempt(key: string): Promise<void> {
      await db
        .updateTable('throttle_counts')
        .set((eb) => ({ count: eb('count', '-', 1) }))
        .where('key', '=', key)
        .where('count', '>', 0)
        .execute();
    },
  };
}
