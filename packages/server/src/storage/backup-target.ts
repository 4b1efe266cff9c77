import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { BlobStoreOptions } from '../core/config.js';
import { listedObjects, s3Connection } from './s3-blob-store.js';

/**
 * Where backup archives are kept (config `backups.target`; docs/operations.md, "Backups"): a
 * folder (by default `<dataDir>/backups`) or an S3-compatible bucket under a prefix. An archive
 * appears whole or not at all: a folder's is copied under a temporary name and renamed, an S3
 * object is visible once its upload completed (storage/s3-blob-store.ts says why).
 */
export interface BackupTarget {
  /** Where, for the page: the folder, or `s3://bucket/prefix`. */
  readonly where: string;
  list(): Promise<StoredArchive[]>;
  /** Stores the file `path` as the archive `name`; resolves to its size. */
  put(name: string, path: string): Promise<number>;
  /** The archive's bytes; rejects when there is no such archive. */
  get(name: string): Promise<Readable>;
  /** Removing an archive that is gone is not an error. */
  remove(name: string): Promise<void>;
  close(): void;
}

export interface StoredArchive {
  name: string;
  size: number;
  /** When it was stored, ms since the epoch. */
  modified: number;
}

/** Archive names are file names of their own: never a path, never hidden. */
const ARCHIVE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.tar\.gz$/;

function checked(name: string): string {
  if (!ARCHIVE.test(name)) throw new Error(`invalid backup name ${JSON.stringify(name)}`);
  return name;
}

export function openBackupTarget(options: BlobStoreOptions, dataDir: string): BackupTarget {
  return options.kind === 's3' ? s3Target(options) : folderTarget(options.dir ?? join(dataDir, 'backups'));
}

function folderTarget(dir: string): BackupTarget {
  return {
    where: dir,
    async list() {
      await mkdir(dir, { recursive: true });
      const archives: StoredArchive[] = [];
      for (const name of await readdir(dir)) {
        if (!ARCHIVE.test(name)) continue;
        const info = await stat(join(dir, name)).catch(() => null);
        if (info?.isFile()) archives.push({ name, size: info.size, modified: info.mtimeMs });
      }
      return archives;
    },
    async put(name, path) {
      await mkdir(dir, { recursive: true });
      const partial = join(dir, `.${checked(name)}.part`);
      try {
        await copyFile(path, partial);
        await rename(partial, join(dir, name));
      } finally {
        await rm(partial, { force: true });
      }
      return (await stat(join(dir, name))).size;
    },
    async get(name) {
      const path = join(dir, checked(name));
      await stat(path);
      return createReadStream(path);
    },
    async remove(name) {
      await rm(join(dir, checked(name)), { force: true });
    },
    close() {},
  };
}

function s3Target(options: Extract<BlobStoreOptions, { kind: 's3' }>): BackupTarget {
  const { s3, close } = s3Connection(options);
  const Bucket = options.bucket;
  const keyOf = (name: string) => `${options.prefix}${checked(name)}`;
  return {
    where: `s3://${Bucket}/${options.prefix}`,
    async list() {
      const archives: StoredArchive[] = [];
      for await (const object of listedObjects(s3, Bucket, options.prefix))
        if (ARCHIVE.test(object.name)) archives.push(object);
      return archives;
    },
    async put(name, path) {
      const { Upload, client } = await s3();
      const upload = new Upload({
        client,
        params: { Bucket, Key: keyOf(name), Body: createReadStream(path) },
        partSize: options.partSizeBytes,
        queueSize: 2,
        leavePartsOnError: false,
      });
      await upload.done();
      return (await stat(path)).size;
    },
    async get(name) {
      const { sdk, client } = await s3();
      const res = await client.send(new sdk.GetObjectCommand({ Bucket, Key: keyOf(name) }));
      if (!(res.Body instanceof Readable)) throw new Error('S3 answered without a body stream');
      return res.Body;
    },
    async remove(name) {
      const { sdk, client } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: keyOf(name) }));
    },
    close,
  };
}
