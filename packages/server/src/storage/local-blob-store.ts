import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { access, constants, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  blobMeter,
  checkDerivedName,
  type BlobStore,
  type ByteRange,
  type ListedBlob,
  type StoredBlob,
} from './blob-store.js';

/** Temporary files untouched this long belong to no running upload (a crash left them). */
const ORPHAN_AGE_MS = 10 * 60 * 1000;
const BLOB_ID = /^[0-9a-f-]{36}$/;
/** This host, short: temporary files name the host and process writing them. */
const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const TMP_NAME = /^[0-9a-f-]{36}\.(\d+)@([0-9a-f]{8})\.part$/;

/** Is process `pid` of this host running? (EPERM: it runs, as another user.) */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A temporary file no upload will finish: untouched for `ORPHAN_AGE_MS`, or written by a process
 * of this host that is gone (a crash or a kill). Another host's file (a shared directory) is
 * judged by its age alone.
 */
function isOrphan(name: string, mtimeMs: number, now: number): boolean {
  if (now - mtimeMs > ORPHAN_AGE_MS) return true;
  const match = TMP_NAME.exec(name);
  return match !== null && match[2] === HOST && Number(match[1]) !== process.pid && !isRunning(Number(match[1]));
}

/**
 * Blobs as files under `dir`: `<dir>/<first two characters of the id>/<id>`. An upload is
 * written to `<dir>/tmp/<id>.<pid>@<host>.part`, synced to disk, then renamed into place (a
 * rename within one file system is atomic), so a crash or a failed upload never leaves a partial
 * blob under an id. Temporary files a crash left behind are removed at start (a gone process's
 * of this host at once, the others once untouched for `ORPHAN_AGE_MS`) and then hourly.
 */
/** Where the blob `id` lives under `dir` (ids are this store's UUIDs; anything else is refused). */
export function localBlobPath(dir: string, id: string): string {
  if (!BLOB_ID.test(id)) throw new Error(`invalid blob id ${JSON.stringify(id)}`);
  return join(dir, id.slice(0, 2), id);
}

export function createLocalBlobStore(
  dir: string,
  { syncDirectories = true } = {},
): BlobStore & { sweep(): void; close(): void } {
  const tmpDir = join(dir, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  // Ids come from this store (UUIDs); anything else must never become a file name.
  const pathOf = (id: string) => localBlobPath(dir, id);
  /** A blob's derived blobs (thumbnails) live in a folder beside it, which `list` does not name. */
  const derivedDirOf = (id: string) => `${pathOf(id)}.derived`;

  function sweep(): void {
    const now = Date.now();
    for (const name of readdirSync(tmpDir)) {
      const file = join(tmpDir, name);
      try {
        if (isOrphan(name, statSync(file).mtimeMs, now)) rmSync(file, { force: true });
      } catch {
        // removed meanwhile by its own upload
      }
    }
  }
  sweep();
  const timer = setInterval(sweep, 3600_000).unref();

  return {
    sweep,
    close: () => clearInterval(timer),

    async put(source, { maxBytes }): Promise<StoredBlob> {
      const id = randomUUID();
      const tmp = join(tmpDir, `${id}.${process.pid}@${HOST}.part`);
      const meter = blobMeter(maxBytes);
      try {
        // `flush`: the data is on disk before the rename makes it visible.
        await pipeline(
          source,
          meter.stream,
          createWriteStream(tmp, { flags: 'wx', flush: true, highWaterMark: 256 * 1024 }),
        );
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      const target = pathOf(id);
      try {
        const made = await mkdir(join(dir, id.slice(0, 2)), { recursive: true });
        await rename(tmp, target);
        // A rename is on disk once its directory is: without this, a power loss right after the
        // answer could lose the blob's name though its contents were flushed (config `durability`).
        if (syncDirectories) {
          if (made !== undefined) await syncDirectory(dir);
          await syncDirectory(join(dir, id.slice(0, 2)));
        }
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      return { id, ...meter.result() };
    },

    async get(id: string, range?: ByteRange): Promise<Readable> {
      // Opened first, so a missing blob rejects here rather than after the headers went out.
      const handle = await open(pathOf(id), 'r');
      return handle.createReadStream({
        ...(range ? { start: range.start, end: range.end } : {}),
        highWaterMark: 64 * 1024,
      });
    },

    getBuffer: (id: string) => readFile(pathOf(id)),

    async delete(id: string): Promise<void> {
      await rm(pathOf(id), { force: true });
      await rm(derivedDirOf(id), { recursive: true, force: true });
    },

    async putDerived(id: string, name: string, bytes: Buffer): Promise<boolean> {
      const folder = derivedDirOf(id);
      const target = join(folder, checkDerivedName(name));
      // Written aside and renamed, as a blob is: a reader sees the whole derived blob or none.
      const tmp = join(tmpDir, `${randomUUID()}.${process.pid}@${HOST}.part`);
      try {
        await writeFile(tmp, bytes, { flag: 'wx', flush: true });
        await mkdir(folder, { recursive: true });
        await rename(tmp, target);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      const blobIsThere = await access(pathOf(id)).then(
        () => true,
        () => false,
      );
      if (!blobIsThere) await rm(folder, { recursive: true, force: true });
      return blobIsThere;
    },

    async getDerived(id: string, name: string): Promise<Buffer | null> {
      try {
        return await readFile(join(derivedDirOf(id), checkDerivedName(name)));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },

    async check(): Promise<void> {
      await access(tmpDir, constants.W_OK);
    },

    async *list(): AsyncIterable<ListedBlob> {
      for (const folder of await readdir(dir)) {
        if (!/^[0-9a-f]{2}$/.test(folder)) continue;
        for (const id of await readdir(join(dir, folder))) {
          if (!BLOB_ID.test(id)) continue;
          const info = await stat(join(dir, folder, id)).catch(() => null);
          if (info) yield { id, modified: info.mtimeMs };
        }
      }
    },
  };
}

/** fsync a directory, so that the names created or renamed in it survive a power loss. */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
