import type { Kysely } from 'kysely';
import type { Config } from '../core/config.js';
import { openBlobStores } from '../storage/blob-stores.js';
import { connectDatabase } from '../storage/database-errors.js';
import { migrateToLatest } from '../storage/migrations/index.js';

/**
 * `roost sweep-blobs`: delete stored contents no file refers to. A process killed after an
 * upload completed but before the file entry pointed at it leaves such a blob (invisible
 * through the API, but it takes space). Only blobs older than `minAgeMs` go: a younger one may
 * belong to an upload another process is about to commit.
 */
export async function sweepBlobs(
  config: Config,
  options: { minAgeMs?: number; now?: number } = {},
): Promise<{ checked: number; deleted: number }> {
  const minAgeMs = options.minAgeMs ?? 3600_000;
  const { db } = await connectDatabase(config);
  const blobs = openBlobStores(config);
  try {
    await migrateToLatest(db as Kysely<unknown>);
    let checked = 0;
    let deleted = 0;
    const swept = new Set<object>();
    for (const store of Object.keys(config.fileStores)) {
      const blobStore = blobs.forStore(store);
      if (swept.has(blobStore)) continue; // stores with the same settings share one
      swept.add(blobStore);
      const cutoff = (options.now ?? Date.now()) - minAgeMs;
      const candidates: string[] = [];
      for await (const blob of blobStore.list()) {
        checked++;
        if (blob.modified <= cutoff) candidates.push(blob.id);
      }
      // Any store's entry counts: several stores may share one blob store.
      for (let i = 0; i < candidates.length; i += 500) {
        const batch = candidates.slice(i, i + 500);
        const referenced = new Set(
          (await db.selectFrom('file_entries').select('blob_id').where('blob_id', 'in', batch).execute()).map(
            (r) => r.blob_id,
          ),
        );
        for (const id of batch) {
          if (referenced.has(id)) continue;
          await blobStore.delete(id);
          deleted++;
        }
      }
    }
    return { checked, deleted };
  } finally {
    blobs.close();
    await db.destroy();
  }
}
