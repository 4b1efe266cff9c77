import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream';
import { Readable } from 'node:stream';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { BlobStoreOptions } from '../core/config.js';
import {
  blobMeter,
  checkDerivedName,
  type BlobStore,
  type ByteRange,
  type ListedBlob,
  type StoredBlob,
} from './blob-store.js';
import { s3DirectTransfers } from './s3-direct.js';

export type S3BlobStoreOptions = Extract<BlobStoreOptions, { kind: 's3' }>;

type S3Upload = typeof import('@aws-sdk/lib-storage').Upload;
interface S3Loaded {
  sdk: typeof import('@aws-sdk/client-s3');
  Upload: S3Upload;
  client: S3Client;
}

/** A blob's id: a UUID (`put`); the key is `<prefix><id>`. */
export const BLOB_ID = /^[0-9a-f-]{36}$/;

/** An access key of S3, as the settings page sets it over the configuration's (core/runtime-settings.ts `s3Keys`). */
export interface S3Keys {
  accessKeyId: string;
  secretAccessKey: string;
}

/** How a client of the bucket's server is made, but for its keys (the S3 blob store's and the tus uploads'). */
export function s3ClientConfig(options: S3BlobStoreOptions): S3ClientConfig {
  return {
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    // The SDK's default since 2025 sends a CRC32 trailer in an aws-chunked body on every upload;
    // many S3-compatible servers store that framing as the contents. Checksums only where an
    // operation requires one; Roost keeps its own SHA-256 of every blob.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  };
}

/** The access key the configuration names, if any. */
export function configuredKeys(options: S3BlobStoreOptions): S3Keys | undefined {
  return options.accessKeyId && options.secretAccessKey
    ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
    : undefined;
}

/**
 * The SDK and a client of the bucket's server, loaded on first use (`s3()`); `close` ends the
 * clients. `liveKeys`: the key in force now (the runtime settings'), if any; else the
 * configuration's, else the SDK's own chain.
 */
export function s3Connection(
  options: S3BlobStoreOptions,
  liveKeys?: () => Promise<S3Keys | undefined>,
): {
  s3: () => Promise<S3Loaded>;
  close(): void;
} {
  const clientConfig = s3ClientConfig(options);
  const configKeys = configuredKeys(options);
  // The SDK is pinned to the last release that supports Node 20 (docs/decisions.md); its
  // warning that later releases need Node 22 tells an operator nothing to do. The SDK's own switch.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // The SDK on first use, not on import: loading it costs ~0.4 s of CPU that every start of a Roost
  // with local blobs (and of each test and `roost` command) paid (CONTRIBUTING.md, "Test time").
  let loading: Promise<Omit<S3Loaded, 'client'>> | undefined;
  // One client per access key: new keys (rotated on the settings page) get a client of their
  // own at the next operation; operations under way finish on theirs. All are closed at the end.
  const clients = new Map<string, S3Client>();
  const s3 = async () => {
    loading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([sdk, lib]) => ({
      sdk,
      Upload: lib.Upload,
    }));
    const { sdk, Upload } = await loading;
    const keys = (await liveKeys?.()) ?? configKeys;
    const name = keys ? `${keys.accessKeyId}\0${keys.secretAccessKey}` : '';
    let client = clients.get(name);
    if (!client) {
      // A fresh credentials object each time: the SDK marks the ones it is given.
      client = new sdk.S3Client({ ...clientConfig, ...(keys ? { credentials: { ...keys } } : {}) });
      clients.set(name, client);
    }
    return { sdk, Upload, client };
  };
  return {
    s3,
    close() {
      for (const client of clients.values()) client.destroy();
    },
  };
}

/**
 * Blobs as objects of an S3-compatible bucket, under `<prefix><id>`. S3 makes an object visible
 * only once its upload completed (a single PUT, or the CompleteMultipartUpload of a multipart
 * one), so a crash or a failed upload never leaves a partial object under a key: what is left is
 * an unfinished multipart upload, which no read sees (a bucket lifecycle rule
 * `AbortIncompleteMultipartUpload` removes those; see docs/scaling.md). Uploads are streamed:
 * at most `partSizeBytes` × 2 of a file is in memory at once.
 */
export function createS3BlobStore(
  options: S3BlobStoreOptions,
  /** The key in force now (the runtime settings'), if any (`s3Connection`). */
  liveKeys?: () => Promise<S3Keys | undefined>,
): BlobStore & { close(): void } {
  const { s3, close } = s3Connection(options, liveKeys);
  const Bucket = options.bucket;
  const keyOf = (id: string) => {
    // Ids come from this store (UUIDs); anything else must never become a key.
    if (!BLOB_ID.test(id)) throw new Error(`invalid blob id ${JSON.stringify(id)}`);
    return `${options.prefix}${id}`;
  };
  /** A blob's derived blobs (thumbnails) are objects under `<prefix><id>.derived/`, which `list` does not name. */
  const derivedPrefixOf = (id: string) => `${keyOf(id)}.derived/`;

  return {
    close,
    direct: s3DirectTransfers(s3, options),

    async put(source, { maxBytes }): Promise<StoredBlob> {
      const { sdk, Upload, client } = await s3();
      const id = randomUUID();
      const meter = blobMeter(maxBytes);
      // The meter's own failure (too large) is the one to report, not the upload's echo of it.
      let failure: unknown = null;
      pipeline(source, meter.stream, (err) => {
        if (err) failure ??= err;
      });
      const upload = new Upload({
        client,
        params: { Bucket, Key: keyOf(id), Body: meter.stream },
        partSize: options.partSizeBytes,
        queueSize: 2,
        // A failed multipart upload is aborted, so its parts do not linger (and cost) in the bucket.
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (err) {
        meter.stream.destroy();
        throw failure ?? err;
      }
      if (failure) {
        // The body ended early but the upload completed: the object holds less than was sent.
        await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: keyOf(id) })).catch(() => {});
        throw failure;
      }
      return { id, ...meter.result() };
    },

    async get(id: string, range?: ByteRange): Promise<Readable> {
      const { sdk, client } = await s3();
      // The request completes with the headers, so a missing object rejects here, before any answer went out.
      const res = await client.send(
        new sdk.GetObjectCommand({
          Bucket,
          Key: keyOf(id),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      if (!(res.Body instanceof Readable)) throw new Error('S3 answered without a body stream');
      return res.Body;
    },

    async getBuffer(id: string): Promise<Buffer> {
      const { sdk, client } = await s3();
      return bodyOf(await client.send(new sdk.GetObjectCommand({ Bucket, Key: keyOf(id) })));
    },

    async check(): Promise<void> {
      const { sdk, client } = await s3();
      await client.send(new sdk.HeadBucketCommand({ Bucket }));
    },

    async delete(id: string): Promise<void> {
      const { sdk, client } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: keyOf(id) }));
      const prefix = derivedPrefixOf(id);
      const derived: string[] = [];
      for await (const { name } of listedObjects(s3, Bucket, prefix)) derived.push(`${prefix}${name}`);
      // One by one: a few thumbnails a blob, and not every S3-compatible server has DeleteObjects.
      await Promise.all(derived.map((Key) => client.send(new sdk.DeleteObjectCommand({ Bucket, Key }))));
    },

    async putDerived(id: string, name: string, bytes: Buffer): Promise<boolean> {
      const { sdk, client } = await s3();
      const Key = `${derivedPrefixOf(id)}${checkDerivedName(name)}`;
      await client.send(new sdk.PutObjectCommand({ Bucket, Key, Body: bytes }));
      const blobIsThere = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: keyOf(id) })).then(
        () => true,
        (err: unknown) => {
          if (isMissing(err)) return false;
          throw err;
        },
      );
      if (!blobIsThere) await client.send(new sdk.DeleteObjectCommand({ Bucket, Key }));
      return blobIsThere;
    },

    async getDerived(id: string, name: string): Promise<Buffer | null> {
      const { sdk, client } = await s3();
      const Key = `${derivedPrefixOf(id)}${checkDerivedName(name)}`;
      try {
        return await bodyOf(await client.send(new sdk.GetObjectCommand({ Bucket, Key })));
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async *list(): AsyncIterable<ListedBlob> {
      for await (const { name, modified } of listedObjects(s3, Bucket, options.prefix))
        if (BLOB_ID.test(name)) yield { id: name, modified };
    },
  };
}

/** The whole body of a GetObject answer. */
async function bodyOf(res: { Body?: { transformToByteArray(): Promise<Uint8Array> } | undefined }): Promise<Buffer> {
  if (!res.Body) throw new Error('S3 answered without a body');
  const bytes = await res.Body.transformToByteArray();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** S3's answer for a key that names no object (GetObject's `NoSuchKey`, HeadObject's bare 404). */
export function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/** Every object of `bucket` under `prefix`, a page of the listing at a time: its name after the prefix, size, time. */
export async function* listedObjects(
  s3: () => Promise<S3Loaded>,
  bucket: string,
  prefix: string,
): AsyncIterable<{ name: string; size: number; modified: number }> {
  const { sdk, client } = await s3();
  let ContinuationToken: string | undefined;
  do {
    const page = await client.send(
      new sdk.ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        ...(ContinuationToken ? { ContinuationToken } : {}),
      }),
    );
    for (const object of page.Contents ?? [])
      yield {
        name: object.Key?.slice(prefix.length) ?? '',
        size: object.Size ?? 0,
        modified: object.LastModified?.getTime() ?? 0,
      };
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
}
