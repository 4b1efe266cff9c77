import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** The `known_devices` table: the devices each account signed in from (new-device-mail.ts). */
export type DeviceRepo = ReturnType<typeof createDeviceRepo>;

export function createDeviceRepo(db: Kysely<Database>) {
  return {
    /**
     * Records a sign-in of `userId` from `deviceHash`: `new` the first time this device is seen
     * when the account had signed in from another before, `first` for an account's first device,
     * `known` otherwise. Two parallel sign-ins from one new device tell it once (the insert's
     * conflict decides which).
     */
    async seen(userId: string, deviceHash: string, now: number): Promise<'new' | 'first' | 'known'> {
      const inserted = await db
        .insertInto('known_devices')
        .values({ user_id: userId, device_hash: deviceHash, first_seen: now, last_seen: now })
        .onConflict((oc) => oc.columns(['user_id', 'device_hash']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
        await db
          .updateTable('known_devices')
          .set({ last_seen: now })
          .where('user_id', '=', userId)
          .where('device_hash', '=', deviceHash)
          .execute();
        return 'known';
      }
      const others = await db
        .selectFrom('known_devices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('device_hash', '!=', deviceHash)
        .executeTakeFirstOrThrow();
      return Number(others.n) > 0 ? 'new' : 'first';
    },
  };
}
