import type { Kysely, Selectable } from 'kysely';
import type { DirectUploadsTable } from '../storage/filestore-schema.js';
import type { Database } from '../storage/schema.js';

/** A presigned upload handed out (filestore/direct-ops.ts). */
export type DirectUpload = Selectable<DirectUploadsTable>;

const asUpload = (row: DirectUpload): DirectUpload => ({
  ...row,
  size: Number(row.size),
  created: Number(row.created),
  expires: Number(row.expires),
});

/** The direct uploads of one file store (rows of `direct_uploads` with its name). */
export function createDirectUploadRepo(db: Kysely<Database>, store: string) {
  const rows = () => db.selectFrom('direct_uploads').selectAll().where('store', '=', store);

  return {
    async insert(upload: Omit<DirectUpload, 'store'>): Promise<void> {
      await db
        .insertInto('direct_uploads')
        .values({ ...upload, store })
        .execute();
    },

    async get(id: string): Promise<DirectUpload | null> {
      const row = await rows().where('id', '=', id).executeTakeFirst();
      return row ? asUpload(row) : null;
    },

    /** Moves a pending upload to `state`; false when it was not pending (another call came first). */
    async settle(id: string, state: 'done' | 'expired'): Promise<boolean> {
      const result = await db
        .updateTable('direct_uploads')
        .set({ state })
        .where('store', '=', store)
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Those of `ids` whose presigned URL may still be in use: expiring after `at`. */
    async liveOf(ids: string[], at: number): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const live = await rows().select('id').where('id', 'in', ids).where('expires', '>', at).execute();
      return new Set(live.map((r) => r.id));
    },

    /** Pending uploads that expired before `at`. */
    async expiredBefore(at: number): Promise<string[]> {
      const expired = await rows().where('state', '=', 'pending').where('expires', '<', at).execute();
      return expired.map((r) => r.id);
    },

    /** Forgets the uploads that expired before `at`; how many. */
    async removeBefore(at: number): Promise<number> {
      const result = await db
        .deleteFrom('direct_uploads')
        .where('store', '=', store)
        .where('expires', '<', at)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type DirectUploadRepo = ReturnType<typeof createDirectUploadRepo>;
