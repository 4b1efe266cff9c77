import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { FileKvStore, type KvStore, type Upload } from '@tus/utils';

/** Records kept in memory at most; past it the oldest go (they are read again from their files). */
const CACHED_RECORDS = 10_000;

export interface UploadRecords extends KvStore<Upload> {
  /** Drop the record of `id` kept in memory (another process may have ended the upload); whether there was one. */
  forget(id: string): boolean;
  /**
   * The record of an upload being made, in memory only until `announce`: no other request knows
   * the upload yet (its URL is in the creation's answer), and one finished by its creation never
   * needs a file.
   */
  hold(id: string, record: Upload): void;
  /** Whether `id` is an upload being made whose record is only held. */
  held(id: string): boolean;
  /** The held record of `id` written to its file, before the answer tells the upload's URL; whether it was held. */
  announce(id: string): Promise<boolean>;
}

/**
 * The records of one file store's resumable uploads on local blobs, for `@tus/file-store` (its
 * `configstore`; storage/partial-uploads.ts): the library's `<id>.json` beside each partial file,
 * written as the library writes it, but read from memory once this process wrote or read it. The
 * library read it twice at each PATCH (and a creation with bytes), most of a small upload's cost
 * beside the plain upload (bench/RESULTS.md, "Resumable uploads"). A record whose length is known
 * never changes, so it can be kept; one whose length is deferred is read from its file each time,
 * since another process sharing the folder may be told the length. A record whose upload another
 * process ended stays in this one's memory until the partial file is found gone (`forget`).
 * A creation's record is held in memory until its answer (`hold`, `announce`): a small file sent
 * whole in its creation (creation-with-upload) is a blob before then, and never has one.
 * Records stay files rather than rows: a row is a database commit, which on SQLite with `durability:
 * full` holds the event loop for an fsync, twice an upload (measured: slower than the files).
 */
export function uploadRecords(directory: string): UploadRecords {
  const files = new FileKvStore<Upload>(directory);
  const cached = new Map<string, Upload>();
  const held = new Map<string, Upload>();
  const remember = (id: string, record: Upload) => {
    cached.delete(id);
    if (record.size === undefined) return;
    cached.set(id, record);
    if (cached.size > CACHED_RECORDS) cached.delete(cached.keys().next().value as string);
  };
  return {
    async get(id) {
      // Never changed by the library once kept (only a deferred length is, and that is not kept).
      const known = held.get(id) ?? cached.get(id);
      if (known) return known;
      const record = await files.get(id);
      if (record) remember(id, record);
      return record;
    },
    async set(id, record) {
      held.delete(id);
      await files.set(id, record);
      // A copy: the library goes on changing the object it gave (its `storage`).
      remember(id, structuredClone(record));
    },
    async delete(id) {
      cached.delete(id);
      if (held.delete(id)) return;
      // One call, where the library's `rm` makes three.
      await unlink(join(directory, `${id}.json`)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
    // The folder is made before the library is (storage/local-partial-uploads.ts), so it is there to list.
    list: () => files.list(),
    forget: (id) => cached.delete(id),
    hold(id, record) {
      // A copy: the library goes on changing the object it gave (its `storage`).
      held.set(id, structuredClone(record));
    },
    held: (id) => held.has(id),
    async announce(id) {
      const record = held.get(id);
      if (!record) return false;
      await this.set(id, record);
      return true;
    },
  };
}
