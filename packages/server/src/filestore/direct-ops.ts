import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { backendGrants } from '../core/grants.js';
import type { Principal } from '../core/permissions.js';
import { parseInput } from '../core/validation.js';
import { BlobTooLargeError, blobMeter, HEAD_BYTES, type StoredBlob } from '../storage/blob-store.js';
import type { DirectTransfers, SignedRequest } from '../storage/s3-direct.js';
import { directErrors } from './direct-errors.js';
import {
  directFinishInput,
  directUploadInput,
  type DirectFinishInput,
  type DirectUploadInput,
} from './direct-inputs.js';
import type { DirectUploadRepo } from './direct-upload-repo.js';
import { parsePath, type FilePath } from './file-paths.js';
import { contentsOps } from './filestore-contents.js';
import { authorize, directoryFor, notRoot, type FileStoreContext } from './filestore-context.js';
import { fileStoreErrors } from './filestore-errors.js';
import type { FileEntry } from './filestore-repo.js';
import type { writeOps } from './filestore-write-ops.js';
import { mimeOf, sniffMime } from './mime-sniff.js';

/** What `@directUpload` answers: where to send the bytes, and the token to finish with. */
export interface DirectUploadTicket {
  upload: string;
  request: SignedRequest;
  /** When the URL and the token expire, in ms since the epoch. */
  expires: number;
}

/** S3's limit of one PUT (and of one CopyObject): a larger file goes up streamed or by tus. */
const MAX_SINGLE_PUT = 5 * 1024 ** 3;
/** A staging object stays this long past its URL's expiry: a finish that began in time may still copy it. */
const GRACE_MS = 5 * 60_000;
/** A finished or expired upload is remembered this long: its token answers `upload_used` or `upload_expired`. */
const KEEP_MS = 86_400_000;

/** Types whose first bytes name them for certain (mime-sniff.ts): announced or found, the other must agree. */
const SIGNATURE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);

/**
 * Types a browser shows from the bucket's origin without running script: the rest are saved, not
 * shown. A list of the inert rather than of the scriptable, which missed `text/xsl` (an XSLT
 * sheet Chrome renders, script and all) and would miss the next such type.
 */
const SHOWN_INLINE =
  /^(image\/(png|jpeg|gif|webp|avif|bmp)|video\/[\w.+-]+|audio\/[\w.+-]+|text\/plain|application\/pdf)$/;

const essence = (mime: string) => mime.split(';')[0]?.trim().toLowerCase() ?? '';

/** Whether the first bytes can be of the announced type (a ZIP or text says too little to refuse anything). */
function typeAgrees(announced: string, head: Buffer, complete: boolean): boolean {
  const sniffed = sniffMime(head, complete);
  const declared = essence(announced);
  return !(SIGNATURE_TYPES.has(declared) || SIGNATURE_TYPES.has(sniffed)) || declared === sniffed;
}

/**
 * Direct uploads and downloads (issue 41, item 2; docs/filestore.md "Direct uploads and
 * downloads (S3)"): the bytes go between the client and the bucket, Roost signs and checks.
 * `directUpload` checks what a `write` to the path would (permission, `maxFileBytes`) and hands
 * out a presigned PUT to a staging object (storage/s3-direct.ts) with a token. `directFinish`
 * takes the token once, from the same caller for the same path: the object's size and type as
 * S3 tells them, then its bytes as a new blob (copied in the bucket, read once for the SHA-256
 * and the first bytes), and records it by the store's own `write` (hooks, events, webhooks, counts).
 * What S3 checks (the signature over length and type, the URL's expiry) a server such as
 * s3rver may not: every one of those is checked again here.
 */
export function directOps(
  ctx: FileStoreContext,
  uploads: DirectUploadRepo,
  write: ReturnType<typeof writeOps>['write'],
) {
  const { repo, blobs, clock, name } = ctx;
  const settings = ctx.options.direct;
  const maxBytes = ctx.options.maxFileBytes;
  const staging = (token: string) => `${name}/${token}`;

  /** The bucket's transfers when the store turned `kind` on; else `direct_not_enabled`. */
  function transfers(kind: 'uploads' | 'downloads'): { direct: DirectTransfers; expiresSeconds: number } {
    if (!settings?.[kind] || !blobs.direct) throw directErrors.direct_not_enabled();
    return { direct: blobs.direct, expiresSeconds: settings.expiresSeconds };
  }

  /** What `write` would check before storing anything: the caller may write the file, or create it. */
  async function mayWrite(principal: Principal, path: FilePath): Promise<void> {
    notRoot(path);
    if (await repo.get(path.path)) await contentsOps(ctx).writableFile(principal, path);
    else await directoryFor(ctx, 'newItem', principal, parsePath(path.parent));
  }

  /** The whole blob read once: its size, SHA-256 and first bytes, as the blob store's `put` measures them. */
  async function measured(blobId: string): Promise<StoredBlob> {
    const meter = blobMeter(maxBytes);
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    await pipeline(await blobs.get(blobId), meter.stream, sink);
    return { id: blobId, ...meter.result() };
  }

  const mismatch = (fields: [string, string][], detail: string) =>
    directErrors.upload_mismatch({
      fields,
      message: `The uploaded object differs from what was announced (${detail}); it was removed.`,
    });

  return {
    /** A presigned PUT for new contents of the file at `path`, if the caller may write them. */
    async directUpload(principal: Principal, path: FilePath, input: DirectUploadInput): Promise<DirectUploadTicket> {
      const values = parseInput(directUploadInput, input);
      const { direct, expiresSeconds } = transfers('uploads');
      await mayWrite(principal, path);
      const limit = Math.min(maxBytes, MAX_SINGLE_PUT);
      if (values.size > limit)
        throw fileStoreErrors.storage_limit({
          message: `The file is larger than a direct upload to this store takes (${limit} bytes).`,
        });
      const mime = values.mime ?? mimeOf(path.name, Buffer.alloc(0), false);
      const token = randomBytes(24).toString('base64url');
      const now = clock.now();
      const expires = now + expiresSeconds * 1000;
      await uploads.insert({
        id: token,
        path: path.path,
        owner: principal.userId,
        size: values.size,
        mime,
        state: 'pending',
        created: now,
        expires,
      });
      const request = await direct.signUpload(staging(token), {
        size: values.size,
        mime,
        expiresSeconds: expiresSeconds,
      });
      return { upload: token, request, expires };
    },

    /** Records the object uploaded with the token as the file at `path`; the entry made or replaced. */
    async directFinish(principal: Principal, path: FilePath, input: DirectFinishInput): Promise<FileEntry> {
      const { upload: token } = parseInput(directFinishInput, input);
      const { direct } = transfers('uploads');
      const upload = await uploads.get(token);
      // Another caller's token, or one for another path, is as unknown as a made-up one.
      if (!upload || upload.owner !== principal.userId || upload.path !== path.path)
        throw directErrors.upload_not_found();
      if (upload.state === 'expired') throw directErrors.upload_expired();
      if (upload.state !== 'pending') throw directErrors.upload_used();
      if (clock.now() > upload.expires) {
        await uploads.settle(token, 'expired');
        await direct.dropStaged(staging(token));
        throw directErrors.upload_expired();
      }
      const object = await direct.staged(staging(token));
      if (!object) throw directErrors.upload_missing();
      // Once: of two finishes, one goes on; a refused upload's token is spent too.
      if (!(await uploads.settle(token, 'done'))) throw directErrors.upload_used();
      if (object.size !== upload.size || essence(object.mime) !== essence(upload.mime)) {
        await direct.dropStaged(staging(token));
        throw mismatch(
          object.size !== upload.size ? [['size', 'mismatch']] : [['mime', 'mismatch']],
          `S3 holds ${object.size} bytes of ${object.mime || 'no type'}`,
        );
      }
      const blobId = await direct.adopt(staging(token));
      let blob: StoredBlob;
      try {
        // The copy, not the staging object, is what is checked and kept: nobody else can write it.
        blob = await measured(blobId);
        if (blob.size !== upload.size) throw mismatch([['size', 'mismatch']], `${blob.size} bytes`);
        if (!typeAgrees(upload.mime, blob.head, blob.size <= HEAD_BYTES))
          throw mismatch([['mime', 'mismatch']], `its first bytes are not ${essence(upload.mime)}`);
      } catch (err) {
        await blobs.delete(blobId).catch(() => {});
        if (err instanceof BlobTooLargeError) throw mismatch([['size', 'mismatch']], `over ${maxBytes} bytes`);
        throw err;
      }
      try {
        await write(principal, path, { mime: upload.mime }, { stream: Readable.from([]), stored: blob });
      } catch (err) {
        // Refused (a permission or a hook changed meanwhile): no entry names the blob.
        await blobs.delete(blobId).catch(() => {});
        throw err;
      }
      return (await repo.get(path.path)) as FileEntry;
    },

    /** A presigned GET of the file at `path`, if the caller may read it, and when it expires. */
    async link(principal: Principal, path: FilePath): Promise<{ url: string; expires: number }> {
      const { direct, expiresSeconds } = transfers('downloads');
      const entry = await authorize(ctx, 'read', principal, path);
      if (entry === null || entry.type !== 'f' || entry.blobId === null) throw fileStoreErrors.not_a_file();
      const expires = clock.now() + expiresSeconds * 1000;
      const mime = entry.mime || 'application/octet-stream';
      const url = await direct.signDownload(entry.blobId, {
        mime,
        filename: entry.name,
        // S3 serves no sandbox (http/file-download.ts sends one): a page or a script an uploader
        // chose is saved, not shown, on the bucket's origin.
        attachment: !SHOWN_INLINE.test(essence(mime)),
        expiresSeconds: expiresSeconds,
      });
      return { url, expires };
    },

    /**
     * Removes what unfinished direct uploads left (administrators: the job of services.ts): staging
     * objects whose URL expired (with a grace for a finish under way), and the tokens a day after.
     * How many staging objects went.
     */
    async sweepDirect(caller: Principal): Promise<number> {
      backendGrants(caller).require('administer');
      if (!settings?.uploads || !blobs.direct) return 0;
      const direct = blobs.direct;
      const cutoff = clock.now() - GRACE_MS;
      for (const token of await uploads.expiredBefore(cutoff)) await uploads.settle(token, 'expired');
      const listed: string[] = [];
      for await (const object of direct.listStaged(name)) listed.push(object.id);
      let removed = 0;
      for (let i = 0; i < listed.length; i += 500) {
        const batch = listed.slice(i, i + 500);
        const live = await uploads.liveOf(batch, cutoff);
        for (const token of batch) {
          if (live.has(token)) continue;
          await direct.dropStaged(staging(token));
          removed++;
        }
      }
      await uploads.removeBefore(clock.now() - KEEP_MS);
      return removed;
    },
  };
}
