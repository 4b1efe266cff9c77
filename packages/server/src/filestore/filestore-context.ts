import type { HookRunner } from '../core/hooks.js';
import { grantsOf } from '../core/grants.js';
import { newId } from '../core/ids.js';
import type { Clock } from '../core/clock.js';
import type { FileStoreOptions } from '../core/config.js';
import type { EventBus } from '../core/events.js';
import type { FileEvent } from './file-events.js';
import type { Principal, ServicePermissions } from '../core/permissions.js';
import type { UserDirectory } from '../core/user-directory.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { PartialUploads } from '../storage/partial-uploads.js';
import type { FilePath } from './file-paths.js';
import { fileStoreErrors } from './filestore-errors.js';
import { READ_OPERATIONS } from './filestore-permissions.js';
import type { createFileStoreRepo, FileEntry } from './filestore-repo.js';

/** Everything the operations of one file store share: made once per store by `createFileStoreService`. */
export interface FileStoreContext {
  name: string;
  options: FileStoreOptions;
  repo: ReturnType<typeof createFileStoreRepo>;
  /**
   * The same queries where reads that may be a little stale run (a replica that has replayed the
   * caller's own writes, storage/replica-reads.ts): a directory's page alone. The entry that
   * decides a permission (`authorize`) is read from `repo`, the primary.
   */
  readRepo: ReturnType<typeof createFileStoreRepo>;
  blobs: BlobStore;
  clock: Clock;
  /** Told of every committed change to an entry (core/events.ts). */
  events: EventBus;
  /** Ids of names and names of ids, from the user service (core/user-directory.ts). */
  users: UserDirectory;
  permissions: ServicePermissions;
  /** The team's hooks on files (file-hooks.ts, docs/hooks.md). */
  hooks: HookRunner;
  /** Where resumable uploads wait until complete (filestore-upload-ops.ts); none: no resumable uploads. */
  uploads?: PartialUploads | undefined;
}

/**
 * Tells the bus of a change to the entry at `path`, after it committed (a move tells its own
 * event); a removal or a change of owner says whose the entry was (see `FileEvent`).
 */
export function tell(
  ctx: FileStoreContext,
  kind: Exclude<FileEvent['kind'], 'file.moved'>,
  path: FilePath,
  before?: { owner: string | null },
): void {
  ctx.events.emit(
    before
      ? { kind, store: ctx.name, path: path.path, owner: before.owner }
      : { kind, store: ctx.name, path: path.path },
  );
}

/** The root directory, as permissions see it: owned by nobody. */
const ROOT_OWNER = { owner: null };

/** Does the caller own the entry (never the root)? */
export const ownedBy = (principal: Principal, entry: FileEntry | null) =>
  entry !== null && principal.userId !== null && entry.owner === principal.userId;

/** An operation that concerns no entry (permissions): the caller holds it or is refused. */
export async function guard(ctx: FileStoreContext, op: string, principal: Principal): Promise<void> {
  const grants = await grantsOf(ctx.permissions, principal);
  if (grants.scope(op) !== 'all') throw grants.refusal(op);
}

/**
 * Check `op` on the entry at `path` and return it (null for the root). A caller who could not
 * hold the permission on any entry is refused at once (401/403, which tells nothing about the
 * path). Otherwise a missing entry, or one the caller may not read, is `not_found`; one it may
 * read but not change is `not_allowed`.
 */
export async function authorize(
  ctx: FileStoreContext,
  op: string,
  principal: Principal,
  path: FilePath,
): Promise<FileEntry | null> {
  const grants = await grantsOf(ctx.permissions, principal);
  grants.require(op);
  const entry = path.path === '' ? null : await ctx.repo.get(path.path);
  if (path.path !== '' && entry === null) throw fileStoreErrors.not_found();
  // The root belongs to nobody: only a grant on every entry covers it.
  const target = entry ?? ROOT_OWNER;
  if (grants.covers(op, target)) return entry;
  const mayRead = !(READ_OPERATIONS as readonly string[]).includes(op) && grants.covers('getItem', target);
  throw mayRead ? grants.refusal(op) : fileStoreErrors.not_found();
}

/** A new entry at `path`, owned by the caller, made now: what a file or directory adds to it is `content`. */
export function newEntry(
  ctx: FileStoreContext,
  principal: Principal,
  path: FilePath,
  content: Pick<FileEntry, 'type' | 'size' | 'mime' | 'cache' | 'blobId' | 'hash'>,
): FileEntry {
  const now = ctx.clock.now();
  return {
    id: newId(),
    path: path.path,
    parent: path.parent,
    name: path.name,
    ...content,
    owner: principal.userId,
    ctime: now,
    mtime: now,
  };
}

/** The root cannot be changed, moved or removed. */
export function notRoot(path: FilePath): void {
  if (path.path === '')
    throw fileStoreErrors.invalid_path({
      fields: [['path', 'invalid']],
      message: 'The root directory cannot be changed, moved or removed.',
    });
}

/** The directory to create in: the root, or an existing directory the caller may create in. */
export async function directoryFor(
  ctx: FileStoreContext,
  op: string,
  principal: Principal,
  dir: FilePath,
): Promise<void> {
  const parent = await authorize(ctx, op, principal, dir);
  if (parent !== null && parent.type !== 'd') throw fileStoreErrors.not_a_directory();
}
