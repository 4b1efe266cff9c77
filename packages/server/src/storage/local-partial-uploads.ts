import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ERRORS, Upload } from '@tus/utils';
import { BlobTooLargeError } from './blob-store.js';
import { localBlobPath, syncDirectory } from './local-blob-store.js';
import type { PartialUploads } from './partial-uploads.js';
import { hashedWrites, metered } from './upload-hashes.js';
import type { UploadLocks } from './upload-locks.js';
import { uploadRecords } from './upload-records.js';

/** What a partial file's write gathers before writing (as local-blob-store.ts): fewer, larger writes. */
const WRITE_BUFFER_BYTES = 256 * 1024;

/**
 * The size of the partial file `file`, its bytes on disk first when `durable`: as a plain upload's
 * are before its entry is written (local-blob-store.ts). A PATCH's bytes need no sync of their own:
 * a file cut short by a power loss tells its true offset, from which the client goes on.
 */
async function syncedSize(file: string, durable: boolean): Promise<number> {
  if (!durable) return (await stat(file)).size;
  const handle = await open(file, 'r');
  try {
    await handle.datasync();
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}

/**
 * Partial files older than `before` (ms) without their record: a process stopped between making
 * the file and writing its record (`create`), so no client was ever told of it. How many went.
 */
async function removeUnrecorded(directory: string, before: number): Promise<number> {
  const names = new Set(await readdir(directory).catch(() => []));
  let removed = 0;
  for (const name of names) {
    if (name.endsWith('.json') || names.has(`${name}.json`)) continue;
    const file = join(directory, name);
    const made = await stat(file).then(
      (info) => info.mtimeMs,
      () => Number.POSITIVE_INFINITY,
    );
    if (made >= before) continue;
    await rm(file, { force: true });
    removed++;
  }
  return removed;
}

/**
 * A file store's resumable uploads on local disk (storage/partial-uploads.ts): `@tus/file-store`
 * under `<blobs>/uploads/<store>/`, the same file system as the blobs, so a finished upload
 * becomes a blob by a rename. `durable` (`durability: full`): a finished upload's bytes and its new
 * name are synced before its entry is written.
 */
export function localUploads(
  dir: string,
  store: string,
  expiryMs: number,
  durable: boolean,
  locks: UploadLocks,
): PartialUploads {
  // A folder per file store: stores sharing a blob directory may expire their uploads differently.
  const directory = join(dir, 'uploads', store);
  const records = uploadRecords(directory);
  let tus: Promise<ReturnType<typeof hashedWrites>> | undefined;
  const hashed = () => {
    // The folder first: the library makes it without waiting, and a sweep may list it at once.
    tus ??= mkdir(directory, { recursive: true }).then(async () => {
      const { FileStore } = await import('@tus/file-store');
      /**
       * The library's file store with fewer file system calls a request, each of which costs about
       * as much as the rest of a small upload's work (bench/RESULTS.md, "Resumable uploads"): its
       * records read from memory (storage/upload-records.ts), no folder made at each creation,
       * the bytes written in larger pieces (as local-blob-store.ts writes). A record this process
       * still keeps of an upload another process made a file meanwhile looks like an expired
       * upload (its partial file is gone): read again, it is no upload.
       */
      class RecordedFileStore extends FileStore {
        // No file yet: the record is held (storage/upload-records.ts); the first write or `announce` makes it.
        override async create(upload: Upload): Promise<Upload> {
          records.hold(upload.id, upload);
          upload.storage = { type: 'file', path: join(directory, upload.id) };
          return upload;
        }
        override async write(source: Readable, id: string, offset: number): Promise<number> {
          // From 0 the file may not be there yet (`create`); past 0 it must be.
          const sink = createWriteStream(join(directory, id), {
            flags: offset === 0 ? 'w' : 'r+',
            start: offset,
            highWaterMark: WRITE_BUFFER_BYTES,
          });
          try {
            await pipeline(source, sink);
          } catch {
            // As the library: what was written stays, and the offset is the file's size.
            throw ERRORS.FILE_WRITE_ERROR;
          }
          return offset + sink.bytesWritten;
        }
        override async getUpload(id: string): Promise<Upload> {
          try {
            return await super.getUpload(id);
          } catch (err) {
            if (err !== ERRORS.FILE_NO_LONGER_EXISTS) throw err;
            // Being made, no byte written yet: nothing is stored.
            const record = records.held(id) ? await records.get(id) : undefined;
            if (record) return new Upload({ ...record, offset: 0 });
            if (!records.forget(id)) throw err;
            return super.getUpload(id);
          }
        }
      }
      return hashedWrites(
        new RecordedFileStore({ directory, configstore: records, expirationPeriodInMilliseconds: expiryMs }),
      );
    });
    return tus;
  };
  return {
    locks,
    datastore: async () => (await hashed()).datastore,
    newId: () => randomUUID(),
    idOf: (uuid) => uuid,
    uuidOf: (id) => id,
    async announce(id) {
      // The file too, where no byte came yet: a HEAD must find the upload at offset 0.
      if (records.held(id)) await writeFile(join(directory, id), '', { flag: 'a' });
      await records.announce(id);
    },
    async recordOf(id) {
      const record = await records.get(id);
      if (!record) throw ERRORS.FILE_NOT_FOUND;
      return record;
    },
    async adopt(id, maxBytes) {
      const target = localBlobPath(dir, id);
      const file = join(directory, id);
      // Hashed as the bytes came (upload-hashes.ts), else read once now.
      const result =
        (await hashed()).take(id, await syncedSize(file, durable)) ?? (await metered(createReadStream(file), maxBytes));
      if (result.size > maxBytes) throw new BlobTooLargeError(maxBytes);
      const made = await mkdir(join(dir, id.slice(0, 2)), { recursive: true });
      await rename(join(directory, id), target);
      // As a blob store's put does (local-blob-store.ts): the new name survives a power loss.
      if (durable) {
        if (made !== undefined) await syncDirectory(dir);
        await syncDirectory(join(dir, id.slice(0, 2)));
      }
      await records.delete(id);
      return { id, ...result };
    },
    async sweepExpired() {
      const { datastore, forgetUntouched } = await hashed();
      const before = Date.now() - expiryMs;
      forgetUntouched(before);
      return (await datastore.deleteExpired()) + (await removeUnrecorded(directory, before));
    },
    close() {},
  };
}
