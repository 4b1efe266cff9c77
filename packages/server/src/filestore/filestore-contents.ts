import { filesAfter } from './file-hooks.js';
import { Readable } from 'node:stream';
import type { Principal } from '../core/permissions.js';
import { invalidField } from '../core/validation.js';
import { BlobTooLargeError, HEAD_BYTES, type StoredBlob } from '../storage/blob-store.js';
import type { FilePath } from './file-paths.js';
import { authorize, newEntry, type FileStoreContext } from './filestore-context.js';
import { fileStoreErrors } from './filestore-errors.js';
import { isMediaType } from './filestore-inputs.js';
import { DuplicatePathError, MissingParentError, type FileEntry } from './filestore-repo.js';
import type { Upload } from './filestore-service.js';
import { mimeOf } from './mime-sniff.js';

/** Types a transport declares when it does not know the file's own type. */
const UNINFORMATIVE_TYPES = new Set([
  '',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]);

/**
 * A file's contents: stored in the blob store within the store's size limit, entered in the
 * tree, replaced by compare-and-set, and the replaced blob dropped once nothing names it.
 */
export function contentsOps(ctx: FileStoreContext) {
  const { repo, blobs, clock } = ctx;
  const maxBytes = ctx.options.maxFileBytes;

  const tooLarge = () =>
    fileStoreErrors.storage_limit({
      message: `The file is larger than this store allows (${maxBytes} bytes).`,
    });

  async function putBlob(stream: Readable): Promise<StoredBlob> {
    try {
      return await blobs.put(stream, { maxBytes });
    } catch (err) {
      if (err instanceof BlobTooLargeError) throw tooLarge();
      throw err;
    }
  }

  /** Store the contents of an upload or of the `contents` text (base64 with `decode`); null when none was given. */
  async function storeContents(
    upload: Upload | undefined,
    text: string | undefined,
    decode: boolean,
  ): Promise<StoredBlob | null> {
    if (upload?.stored) return upload.stored;
    if (upload) {
      if (upload.size !== undefined && upload.size > maxBytes) throw tooLarge();
      return putBlob(upload.stream);
    }
    if (text === undefined) return null;
    if (decode && !/^[A-Za-z0-9+/_\-=\s]*$/.test(text)) throw invalidField('contents', 'invalid');
    const bytes = decode ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
    if (bytes.length > maxBytes) throw tooLarge();
    return putBlob(Readable.from(bytes.length > 0 ? [bytes] : []));
  }

  /** The caller's `mime`, else a type the transport declared, else from the name, else sniffed. */
  function chooseMime(
    name: string,
    blob: StoredBlob,
    explicit: string | undefined,
    upload: Upload | undefined,
  ): string {
    if (explicit) return explicit;
    const declared = upload?.mime?.trim();
    if (
      declared &&
      isMediaType(declared) &&
      !UNINFORMATIVE_TYPES.has(declared.split(';')[0]?.trim().toLowerCase() ?? '')
    )
      return declared;
    return mimeOf(name, blob.head, blob.size <= HEAD_BYTES);
  }

  /** Old blobs are deleted after the metadata no longer names them; a failure leaves only an unreferenced file. */
  const dropBlob = (id: string | null) => (id ? blobs.delete(id).catch(() => {}) : Promise.resolve());

  /** Point the file at a stored blob (retrying when a concurrent write came first), then drop the replaced one. */
  async function replaceContents(entry: FileEntry, blob: StoredBlob, mime: string): Promise<void> {
    let expected = entry.blobId;
    // Each failed compare-and-set means another write succeeded, so this ends; a fixed number of
    // tries answered 404 to some of 50 concurrent writers on PostgreSQL (filestore-races.test.ts).
    for (;;) {
      if (
        await repo.replaceContents(entry.id, expected, {
          blobId: blob.id,
          size: blob.size,
          hash: blob.hash,
          mime,
          mtime: clock.now(),
        })
      ) {
        await dropBlob(expected);
        return;
      }
      const current = await repo.byId(entry.id);
      if (!current) break;
      expected = current.blobId;
    }
    await dropBlob(blob.id);
    throw fileStoreErrors.not_found();
  }

  /** Enter a file with stored contents; false when the path exists (the blob is then still the caller's). */
  async function insertFile(
    principal: Principal,
    path: FilePath,
    blob: StoredBlob,
    mime: string,
    cache: string,
  ): Promise<boolean> {
    try {
      await repo.insert(
        newEntry(ctx, principal, path, { type: 'f', size: blob.size, mime, cache, blobId: blob.id, hash: blob.hash }),
        filesAfter(ctx, principal, 'file.create', path, false),
      );
      return true;
    } catch (err) {
      if (err instanceof DuplicatePathError) return false;
      await dropBlob(blob.id);
      if (err instanceof MissingParentError) throw fileStoreErrors.not_found();
      throw err;
    }
  }

  async function createFile(
    principal: Principal,
    path: FilePath,
    blob: StoredBlob,
    mime: string,
    cache: string,
  ): Promise<void> {
    if (await insertFile(principal, path, blob, mime, cache)) return;
    await dropBlob(blob.id);
    throw invalidField('name', 'exists');
  }

  /** The file at `path` if the caller may write it. */
  async function writableFile(principal: Principal, path: FilePath): Promise<FileEntry> {
    const entry = (await authorize(ctx, 'write', principal, path)) as FileEntry;
    if (entry.type !== 'f') throw fileStoreErrors.not_a_file();
    return entry;
  }

  async function replaceExisting(principal: Principal, path: FilePath, blob: StoredBlob, mime: string): Promise<void> {
    await replaceContents(await writableFile(principal, path), blob, mime);
  }

  return {
    tooLarge,
    putBlob,
    storeContents,
    chooseMime,
    dropBlob,
    replaceContents,
    insertFile,
    createFile,
    writableFile,
    replaceExisting,
  };
}
