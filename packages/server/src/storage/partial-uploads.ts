import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type DataStore, ERRORS } from '@tus/utils';
import type { BlobStoreOptions, Config } from '../core/config.js';
import { BlobTooLargeError, blobMeter, type StoredBlob } from './blob-store.js';
import type { LiveS3Keys } from './blob-stores.js';
import { localBlobPath, syncDirectory } from './local-blob-store.js';
import { configuredKeys, isMissing, s3ClientConfig, s3Connection, type S3BlobStoreOptions } from './s3-blob-store.js';
import { hashedWrites } from './upload-hashes.js';
import { postgresUrls } from './pg-connections.js';
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

/** A sink that keeps nothing: the meter is what reads the bytes. */
const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

async function metered(source: Readable, maxBytes: number): Promise<Omit<StoredBlob, 'id'>> {
  const meter = blobMeter(maxBytes);
  await pipeline(source, meter.stream, discard());
  return meter.result();
}

function localUploads(
  dir: string,
  store: string,
  expiryMs: number,
  syncDirectories: boolean,
  locks: UploadLocks,
): PartialUploads {
  // A folder per file store: stores sharing a blob directory may expire their uploads differently.
  const directory = join(dir, 'uploads', store);
  let tus: Promise<ReturnType<typeof hashedWrites>> | undefined;
  const hashed = () => {
    tus ??= import('@tus/file-store').then(({ FileStore }) =>
      hashedWrites(new FileStore({ directory, expirationPeriodInMilliseconds: expiryMs })),
    );
    return tus;
  };
  return {
    locks,
    datastore: async () => (await hashed()).datastore,
    newId: () => randomUUID(),
    idOf: (uuid) => uuid,
    uuidOf: (id) => id,
    async adopt(id, maxBytes) {
      const target = localBlobPath(dir, id);
      const file = join(directory, id);
      // Hashed as the bytes came (upload-hashes.ts), else read once now.
      const result =
        (await hashed()).take(id, (await stat(file)).size) ?? (await metered(createReadStream(file), maxBytes));
      if (result.size > maxBytes) throw new BlobTooLargeError(maxBytes);
      const made = await mkdir(join(dir, id.slice(0, 2)), { recursive: true });
      await rename(join(directory, id), target);
      // As a blob store's put does (local-blob-store.ts): the new name survives a power loss.
      if (syncDirectories) {
        if (made !== undefined) await syncDirectory(dir);
        await syncDirectory(join(dir, id.slice(0, 2)));
      }
      // @tus/file-store keeps the upload's record in `<id>.json` beside it.
      await rm(join(directory, `${id}.json`), { force: true });
      return { id, ...result };
    },
    async sweepExpired() {
      const { datastore, forgetUntouched } = await hashed();
      forgetUntouched(Date.now() - expiryMs);
      return datastore.deleteExpired();
    },
    close() {},
  };
}

function s3Uploads(
  options: S3BlobStoreOptions,
  expiryMs: number,
  locks: UploadLocks,
  liveKeys?: LiveS3Keys,
): PartialUploads {
  const keys = async () => (await liveKeys?.(options.bucket)) ?? configuredKeys(options);
  const connection = s3Connection(options, liveKeys ? () => liveKeys(options.bucket) : undefined);
  /** The hashed tus store, and the library's store under it (its record of each upload kept in memory). */
  type Stores = ReturnType<typeof hashedWrites> & { s3: { forget(id: string): Promise<void> } };
  let store: Promise<Stores> | undefined;
  const infoKey = (id: string) => `${id}.info`;
  /** The size of the object `key`, null when there is none. */
  const sizeOf = async (key: string) => {
    const { sdk, client } = await connection.s3();
    return client.send(new sdk.HeadObjectCommand({ Bucket: options.bucket, Key: key })).then(
      (head) => head.ContentLength ?? 0,
      (err: unknown) => {
        if (isMissing(err)) return null;
        throw err;
      },
    );
  };
  const hashed = (): Promise<Stores> => {
    store ??= import('@tus/s3-store').then(async ({ S3Store }) => {
      /**
       * The library fails a write when the multipart upload is gone. Then, if the upload's record
       * (`.info`) is gone too, it became a file meanwhile (`adopt`, maybe in another process,
       * whose record this process may still keep in memory): no such upload (404). If the record
       * is there and the object has every byte, the process that completed the multipart upload
       * died before the upload became a file (http/tus-uploads.ts `finishStranded`): nothing to
       * write, the offset stands.
       */
      class ResumableS3Store extends S3Store {
        /** The library's record of upload `id` in memory dropped: it became a file. */
        forget(id: string): Promise<void> {
          return this.clearCache(id);
        }
        override async write(source: Readable, id: string, offset: number): Promise<number> {
          try {
            return await super.write(source, id, offset);
          } catch (err) {
            const [record, size] = await Promise.all([sizeOf(infoKey(id)), sizeOf(id)]);
            if (record === null) {
              await this.clearCache(id);
              throw ERRORS.FILE_NOT_FOUND;
            }
            if (size !== offset) throw err;
            source.resume();
            return offset;
          }
        }
      }
      const configured = await keys();
      const s3 = new ResumableS3Store({
        partSize: options.partSizeBytes,
        expirationPeriodInMilliseconds: expiryMs,
        // Expiry is swept by Roost (services.ts), not by lifecycle rules on tags, which not
        // every S3-compatible server keeps.
        useTags: false,
        s3ClientConfig: {
          ...s3ClientConfig(options),
          bucket: options.bucket,
          // The key in force at each request: the settings page may change it (s3-blob-store.ts).
          ...(configured || liveKeys
            ? {
                credentials: async () => {
                  const now = await keys();
                  if (!now) throw new Error(`no access key for the bucket ${options.bucket}`);
                  return { ...now };
                },
              }
            : {}),
        },
      });
      return { ...hashedWrites(s3), s3 };
    });
    return store;
  };
  return {
    locks,
    datastore: async () => (await hashed()).datastore,
    newId: () => randomUUID(),
    idOf: (uuid) => `${options.prefix}${uuid}`,
    uuidOf: (id) => id.slice(options.prefix.length),
    async adopt(id, maxBytes) {
      const { sdk, client } = await connection.s3();
      const Bucket = options.bucket;
      const { ContentLength = -1 } = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: id }));
      // Hashed as the bytes came (upload-hashes.ts), else read once now, through this process only.
      let result = (await hashed()).take(id, ContentLength);
      if (!result) {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket, Key: id }));
        result = await metered(object.Body as Readable, maxBytes);
      }
      if (result.size > maxBytes) throw new BlobTooLargeError(maxBytes);
      await client.send(new sdk.DeleteObjectCommand({ Bucket: options.bucket, Key: infoKey(id) }));
      // The library keeps each upload's record in memory: this one is no upload any more.
      await (await hashed()).s3.forget(id);
      return { id: this.uuidOf(id), ...result };
    },
    async sweepExpired() {
      const { datastore, forgetUntouched } = await hashed();
      forgetUntouched(Date.now() - expiryMs);
      return datastore.deleteExpired();
    },
    close: () => connection.close(),
  };
}

/**
 * The partial uploads of the file store `store`, beside its blobs (`options`, as `openBlobStore`
 * takes them). On S3 the sweep lists the bucket's multipart uploads: stores sharing a bucket
 * share the shortest expiry.
 */
function openPartialUploads(
  store: string,
  options: BlobStoreOptions,
  config: Pick<Config, 'dataDir' | 'durability'>,
  expiryMs: number,
  locks: UploadLocks,
  liveKeys?: LiveS3Keys,
): PartialUploads {
  return options.kind === 's3'
    ? s3Uploads(options, expiryMs, locks, liveKeys)
    : localUploads(options.dir ?? join(config.dataDir, 'blobs'), store, expiryMs, config.durability === 'full', locks);
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
  const byStore = new Map(
    Object.entries(config.fileStores).map(([name, store]) => [
      name,
      openPartialUploads(name, store.blobs ?? config.blobs, config, store.uploadExpirySeconds * 1000, locks, liveKeys),
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
