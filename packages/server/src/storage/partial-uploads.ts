import { join } from 'node:path';
import type { DataStore, Upload } from '@tus/utils';
import type { BlobStoreOptions, Config } from '../core/config.js';
import type { StoredBlob } from './blob-store.js';
import type { LiveS3Keys } from './blob-stores.js';
import { localUploads } from './local-partial-uploads.js';
import { postgresUrls } from './pg-connections.js';
import { s3Uploads } from './s3-partial-uploads.js';
import { memoryUploadLocks, postgresUploadLocks, type UploadLocks } from './upload-locks.js';

/**
 * Where a file store's resumable (tus) uploads keep their bytes until they are complete, beside
 * the store's blobs (docs/filestore.md, "Resumable uploads"): on local disk `@tus/file-store`
 * under `<blobs>/uploads/` (the same file system, so a finished upload becomes a blob by a
 * rename); on S3 `@tus/s3-store`, each upload an S3 multipart upload under the very key its blob
 * will have (`<prefix><id>`), so a finished upload is the blob without a copy and no part of it
 * ever sits on the server's disk. The ids are the blobs' ids to be (UUIDs).
 */
export interface PartialUploads {
  /** The tus data store of these uploads, made on first use (the S3 SDK loads only then). */
  datastore(): Promise<DataStore>;
  /** A new upload's id, a UUID: the id of its blob once complete. */
  newId(): string;
  /** What the data store's id of an upload is (the S3 key prefix before the UUID). */
  idOf(uuid: string): string;
  /** The UUID of a data store's id (what upload URLs show). */
  uuidOf(id: string): string;
  /**
   * What upload `id` was made with (its metadata; its length, if told), without asking how many of
   * its bytes are stored (no file's size, no S3 listing): enough to tell who may touch it. Rejects
   * with the library's "not found" when there is no such upload.
   */
  recordOf(id: string): Promise<Pick<Upload, 'metadata' | 'size'>>;
  /**
   * Upload `id` made by this request, before the answer tells its URL: from then on it is found
   * by every request and process (storage/upload-records.ts `hold`). Nothing for one finished meanwhile.
   */
  announce(id: string): Promise<void>;
  /**
   * The complete upload `id` as a blob of the store's blob store (its SHA-256 and head read once,
   * at most `maxBytes`); the upload's own records are gone after. Rejects, leaving the upload,
   * when its bytes cannot be read.
   */
  adopt(id: string, maxBytes: number): Promise<StoredBlob>;
  /** Remove the uploads older than the expiry; how many went (the library's count). */
  sweepExpired(): Promise<number>;
  /** Who writes an upload now, across the deployment's processes (storage/upload-locks.ts). */
  readonly locks: UploadLocks;
  close(): void;
}

/**
 * Every file store's partial uploads (services.ts): each store's, the sweep of all, and their end.
 * Their locks are one set for every store (upload ids are UUIDs), across processes on PostgreSQL
 * (storage/upload-locks.ts; `onLockError`: its connection failed), closed with them.
 */
export function openStoresPartialUploads(
  config: Config,
  liveKeys: LiveS3Keys | undefined,
  onLockError: (err: Error) => void,
): { forStore(store: string): PartialUploads; sweepExpired(): Promise<void>; close(): Promise<void> } {
  const urls = postgresUrls(config);
  const locks = urls ? postgresUploadLocks(urls.direct, onLockError) : memoryUploadLocks();
  // Each store's beside its blobs (as `openBlobStore` takes them). On S3 the sweep lists the
  // bucket's multipart uploads: stores sharing a bucket share the shortest expiry.
  const open = (name: string, options: BlobStoreOptions, expiryMs: number) =>
    options.kind === 's3'
      ? s3Uploads(options, expiryMs, locks, liveKeys)
      : localUploads(options.dir ?? join(config.dataDir, 'blobs'), name, expiryMs, config.durability === 'full', locks);
  const byStore = new Map(
    Object.entries(config.fileStores).map(([name, store]) => [
      name,
      open(name, store.blobs ?? config.blobs, store.uploadExpirySeconds * 1000),
    ]),
  );
  return {
    forStore(store) {
      const uploads = byStore.get(store);
      if (!uploads) throw new Error(`no file store ${store}`);
      return uploads;
    },
    async sweepExpired() {
      for (const uploads of byStore.values()) await uploads.sweepExpired();
    },
    async close() {
      for (const uploads of byStore.values()) uploads.close();
      await locks.close();
    },
  };
}
