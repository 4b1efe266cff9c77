import type { HookRunner } from '../core/hooks.js';
import { type FilePath, parsePath } from './file-paths.js';
import type { Readable } from 'node:stream';
import type { UserDirectory } from '../core/user-directory.js';
import type { Clock } from '../core/clock.js';
import type { FileStoreOptions } from '../core/config.js';
import type { EventBus } from '../core/events.js';
import { backendGrants } from '../core/grants.js';
import { servicePermissions, type PermissionStore, type Principal } from '../core/permissions.js';
import type { BlobStore, ByteRange, StoredBlob } from '../storage/blob-store.js';
import type { PartialUploads } from '../storage/partial-uploads.js';
import { directOps } from './direct-ops.js';
import type { DirectUploadRepo } from './direct-upload-repo.js';
import type { FileStoreContext } from './filestore-context.js';
import { FILESTORE_KEY_ACCESS, fileStorePermissionDefaults } from './filestore-permissions.js';
import type { createFileStoreRepo, FileEntry } from './filestore-repo.js';
import { readOps } from './filestore-read-ops.js';
import { writeOps } from './filestore-write-ops.js';
import { uploadOps } from './filestore-upload-ops.js';
import { thumbnailOps } from './thumbnails/thumbnail-ops.js';

/** A body streamed by the transport (a raw `@write` body or a multipart file part). */
export interface Upload {
  stream: Readable;
  /** The media type the transport declared (Content-Type of a raw body, a part's type). */
  mime?: string | undefined;
  /** The announced size (Content-Length), when known: a larger file is refused unread. */
  size?: number | undefined;
  /** Contents already in the blob store and checked (a direct upload: direct-ops.ts); `stream` is then not read. */
  stored?: StoredBlob | undefined;
}

/** A readable file: what a download needs to answer, and its bytes on demand. */
export interface FileContents {
  name: string;
  size: number;
  mime: string;
  /** SHA-256 of the contents, base64url: the ETag. */
  hash: string;
  mtime: number;
  cache: string;
  open(range?: ByteRange): Promise<Readable>;
}

/** One page of a directory's entries: `start` counts from 1, `total` counts every match. */
export interface EntryPage {
  entries: FileEntry[];
  start: number;
  size: number;
  total: number;
}

export interface FileStoreServiceDeps {
  name: string;
  options: FileStoreOptions;
  repo: ReturnType<typeof createFileStoreRepo>;
  /** The same queries on a replica (storage/replica-reads.ts), for directory pages; `repo` when absent. */
  readRepo?: ReturnType<typeof createFileStoreRepo>;
  blobs: BlobStore;
  clock: Clock;
  permissionStore: PermissionStore;
  /** Told of every committed change to an entry (core/events.ts). */
  events: EventBus;
  /** Ids of names and names of ids, from the user service (core/user-directory.ts). */
  users: UserDirectory;
  /** The team's hooks on files (file-hooks.ts). */
  hooks: HookRunner;
  /** Where resumable uploads wait until complete (storage/partial-uploads.ts); none: no resumable uploads. */
  uploads?: PartialUploads | undefined;
  /** The presigned uploads handed out (direct-ops.ts). */
  directUploads: DirectUploadRepo;
}

/**
 * One file store: a tree of files and directories with owners, contents in the blob store.
 * Every operation takes the caller as a `Principal` and the path already parsed, checks its
 * input with its schema (filestore-inputs.ts) and answers a model; nothing here knows HTTP (the
 * original protocol's answers are made in http/protocol/filestore-protocol.ts). A file or
 * directory the caller may not read answers `not_found`, so its existence is not revealed. The
 * operations are in filestore-read-ops.ts and filestore-write-ops.ts, over the context of
 * filestore-context.ts, as the data store's are.
 */
export function createFileStoreService(deps: FileStoreServiceDeps) {
  const ctx: FileStoreContext = {
    name: deps.name,
    options: deps.options,
    repo: deps.repo,
    readRepo: deps.readRepo ?? deps.repo,
    blobs: deps.blobs,
    clock: deps.clock,
    events: deps.events,
    users: deps.users,
    permissions: servicePermissions(
      deps.permissionStore,
      deps.name,
      fileStorePermissionDefaults(deps.options.read),
      FILESTORE_KEY_ACCESS,
    ),
    hooks: deps.hooks,
    uploads: deps.uploads,
  };
  const writes = writeOps(ctx);
  return {
    name: ctx.name,
    options: ctx.options,
    permissions: ctx.permissions,
    /** Where this store's resumable uploads wait until complete (http/tus-uploads.ts), if it takes them. */
    uploads: ctx.uploads,
    /** How many files the store holds and their bytes (the admin dashboard): for administrators. */
    usage: async (caller: Principal) => {
      backendGrants(caller).require('administer');
      return ctx.repo.usage();
    },
    /**
     * The entry at `path` as stored (null: none), whoever owns it: for administrators only, the live
     * changes hub (realtime/families/file-family.ts), which reads a changed entry once and checks each subscriber.
     */
    peek: async (caller: Principal, path: string) => {
      backendGrants(caller).require('administer');
      return ctx.repo.get(path);
    },
    /**
     * Whether a file (not a directory) is at `path` (text, as a caller writes it; false when it is
     * not a path): another kind's reference to it, existence only (collections/record-references.ts).
     */
    async holdsFile(path: string): Promise<boolean> {
      let parsed: FilePath;
      try {
        parsed = parsePath(path);
      } catch {
        return false;
      }
      return (await ctx.repo.get(parsed.path))?.type === 'f';
    },
    ...readOps(ctx),
    ...writes,
    ...uploadOps(ctx),
    ...directOps(ctx, deps.directUploads, writes.write),
    ...thumbnailOps(ctx),
    /** Answers every caller (`ping` has no permission in the original). */
    async ping(): Promise<void> {},
  };
}

export type FileStore = ReturnType<typeof createFileStoreService>;
