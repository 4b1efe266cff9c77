import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ERRORS, type Upload } from '@tus/utils';
import { BlobTooLargeError } from './blob-store.js';
import type { LiveS3Keys } from './blob-stores.js';
import type { PartialUploads } from './partial-uploads.js';
import { configuredKeys, isMissing, s3ClientConfig, s3Connection, type S3BlobStoreOptions } from './s3-blob-store.js';
import { hashedWrites, metered } from './upload-hashes.js';
import type { UploadLocks } from './upload-locks.js';

/**
 * A file store's resumable uploads on S3 (storage/partial-uploads.ts): `@tus/s3-store`, each
 * upload an S3 multipart upload under the very key its blob will have (`<prefix><id>`), so a
 * finished upload is the blob without a copy and no part of it ever sits on the server's disk.
 */
export function s3Uploads(
  options: S3BlobStoreOptions,
  expiryMs: number,
  locks: UploadLocks,
  liveKeys?: LiveS3Keys,
): PartialUploads {
  const keys = async () => (await liveKeys?.(options.bucket)) ?? configuredKeys(options);
  const connection = s3Connection(options, liveKeys ? () => liveKeys(options.bucket) : undefined);
  /** The hashed tus store, and the library's store under it (its record of each upload kept in memory). */
  type Stores = ReturnType<typeof hashedWrites> & {
    s3: { forget(id: string): Promise<void>; recordOf(id: string): Promise<Upload> };
  };
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
        /** The record (`.info`) of upload `id`, kept in memory once read, without listing its parts. */
        async recordOf(id: string): Promise<Upload> {
          try {
            return (await this.getMetadata(id)).file;
          } catch {
            // As the library's `getUpload`: no record read is no such upload.
            throw ERRORS.FILE_NOT_FOUND;
          }
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
    recordOf: async (id) => (await hashed()).s3.recordOf(id),
    // The library writes an S3 upload's record at its creation (its multipart upload is made then).
    announce: async () => {},
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
