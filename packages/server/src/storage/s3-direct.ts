import { randomUUID } from 'node:crypto';
import type { ListedBlob } from './blob-store.js';
import { BLOB_ID, listedObjects, type s3Connection, type S3BlobStoreOptions } from './s3-blob-store.js';

/**
 * What a blob store on S3 offers besides `BlobStore` (storage/blob-store.ts): transfers between a
 * client and the bucket that Roost signs but does not carry (filestore/direct-ops.ts,
 * docs/filestore.md "Direct uploads and downloads (S3)"). A client uploads to a *staging* object,
 * `<prefix>direct/<store>/<token>`, never to a blob: the presigned URL stays valid until it
 * expires, so a blob it could reach would change under a file. Roost copies a checked staging
 * object to a new blob (`adopt`).
 */
export interface DirectTransfers {
  /** A presigned PUT to the staging object `staging` (`<store>/<token>`) of exactly `size` bytes of type `mime`. */
  signUpload(staging: string, upload: { size: number; mime: string; expiresSeconds: number }): Promise<SignedRequest>;
  /** The staging object as S3 tells it (HEAD), or null when nothing was uploaded to it. */
  staged(staging: string): Promise<{ size: number; mime: string } | null>;
  /** A new blob with the staging object's contents (a copy inside the bucket); the staging object is then removed. */
  adopt(staging: string): Promise<string>;
  /** Remove a staging object; one that is gone is not an error. */
  dropStaged(staging: string): Promise<void>;
  /** The staging objects of one store (for the sweep): `id` is the token. */
  listStaged(store: string): AsyncIterable<ListedBlob>;
  /** A presigned GET of a blob, answered by S3 with the given type, file name and disposition. */
  signDownload(
    blobId: string,
    download: { mime: string; filename: string; attachment: boolean; expiresSeconds: number },
  ): Promise<string>;
}

/** A request the client sends to S3 as it is: the method, the URL and the headers the signature covers. */
export interface SignedRequest {
  method: 'PUT';
  url: string;
  headers: Record<string, string>;
}

/** `<store>/<token>`: a store name (core/config-parts.ts) and a token of filestore/direct-ops.ts. */
const STAGING = /^[a-z0-9][a-z0-9_-]{0,62}\/[A-Za-z0-9_-]{32}$/;

/** The direct transfers of one bucket, over the blob store's connection (`s3Connection`). */
export function s3DirectTransfers(
  s3: ReturnType<typeof s3Connection>['s3'],
  options: S3BlobStoreOptions,
): DirectTransfers {
  const Bucket = options.bucket;
  const stagingPrefix = `${options.prefix}direct/`;
  const stagingKey = (staging: string) => {
    // Staging names come from filestore/direct-ops.ts; anything else must never become a key.
    if (!STAGING.test(staging)) throw new Error(`invalid staging name ${JSON.stringify(staging)}`);
    return `${stagingPrefix}${staging}`;
  };
  // The blob store's own scheme (s3-blob-store.ts `keyOf`).
  const blobKey = (id: string) => {
    if (!BLOB_ID.test(id)) throw new Error(`invalid blob id ${JSON.stringify(id)}`);
    return `${options.prefix}${id}`;
  };
  // The presigner on first use, as the SDK itself (s3-blob-store.ts `s3Connection`).
  let presigner: Promise<typeof import('@aws-sdk/s3-request-presigner')> | undefined;
  const signer = () => {
    presigner ??= import('@aws-sdk/s3-request-presigner');
    return presigner;
  };

  return {
    async signUpload(staging, { size, mime, expiresSeconds }) {
      const [{ sdk, client }, { getSignedUrl }] = await Promise.all([s3(), signer()]);
      const command = new sdk.PutObjectCommand({
        Bucket,
        Key: stagingKey(staging),
        ContentType: mime,
        ContentLength: size,
      });
      // Both headers signed: AWS refuses a PUT of another length or type (SignatureDoesNotMatch).
      // The presigner leaves content-type unsigned unless told; a server that checks no signature
      // (s3rver) takes anything, and Roost's check at `@directFinish` catches it.
      const url = await getSignedUrl(client, command, {
        expiresIn: expiresSeconds,
        signableHeaders: new Set(['content-type', 'content-length']),
      });
      return { method: 'PUT', url, headers: { 'content-type': mime } };
    },

    async staged(staging) {
      const { sdk, client } = await s3();
      try {
        const head = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: stagingKey(staging) }));
        return { size: head.ContentLength ?? 0, mime: head.ContentType ?? '' };
      } catch (err) {
        if (err instanceof sdk.NotFound || (err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },

    async adopt(staging) {
      const { sdk, client } = await s3();
      const id = randomUUID();
      const source = stagingKey(staging).split('/').map(encodeURIComponent).join('/');
      // A single CopyObject: a direct upload is one PUT, at most 5 GiB, as is a copy.
      await client.send(new sdk.CopyObjectCommand({ Bucket, Key: blobKey(id), CopySource: `${Bucket}/${source}` }));
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: stagingKey(staging) }));
      return id;
    },

    async dropStaged(staging) {
      const { sdk, client } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: stagingKey(staging) }));
    },

    async *listStaged(store) {
      for await (const { name, modified } of listedObjects(s3, Bucket, `${stagingPrefix}${store}/`))
        if (STAGING.test(`${store}/${name}`)) yield { id: name, modified };
    },

    async signDownload(blobId, { mime, filename, attachment, expiresSeconds }) {
      const [{ sdk, client }, { getSignedUrl }] = await Promise.all([s3(), signer()]);
      const encodedName = `filename*=UTF-8''${encodeURIComponent(filename)}`;
      const command = new sdk.GetObjectCommand({
        Bucket,
        Key: blobKey(blobId),
        ResponseContentType: mime,
        // RFC 6266's UTF-8 form: any name, quoted safely.
        ResponseContentDisposition: `${attachment ? 'attachment' : 'inline'}; ${encodedName}`,
      });
      return getSignedUrl(client, command, { expiresIn: expiresSeconds });
    },
  };
}
