import type { AllowedQuery, PermissionEntry } from '../core/permission-ops.js';
import { allowedOf, permissionEntries } from '../core/permission-ops.js';
import type { Principal } from '../core/permissions.js';
import { parseInput } from '../core/validation.js';
import type { FilePath } from './file-paths.js';
import { authorize, guard, ownedBy, type FileStoreContext } from './filestore-context.js';
import { fileStoreErrors } from './filestore-errors.js';
import { listInput, type EntryQuery } from './filestore-inputs.js';
import type { FileEntry } from './filestore-repo.js';
import type { EntryPage, FileContents } from './filestore-service.js';

/** The operations that change nothing: the entry, a directory's page, permissions, the owner, a file's contents. */
export function readOps(ctx: FileStoreContext) {
  const { repo, readRepo, blobs, options, permissions } = ctx;

  return {
    /** The entry at `path`; null for the root directory. */
    async get(principal: Principal, path: FilePath): Promise<FileEntry | null> {
      return authorize(ctx, 'getItem', principal, path);
    },

    async list(principal: Principal, path: FilePath, input: EntryQuery): Promise<EntryPage> {
      const query = parseInput(listInput, input);
      const dir = await authorize(ctx, 'list', principal, path);
      if (dir !== null && dir.type !== 'd') throw fileStoreErrors.not_a_directory();
      const size = Math.min(query.size ?? options.defaultPageSize, options.maxPageSize);
      // The page may be a little stale (docs/scaling.md, "Read replicas"); the directory's entry was the primary's.
      const { entries, total } = await readRepo.list(path.path, query, size);
      return { entries, start: query.start, size, total };
    },

    /**
     * Whether the caller holds each permission asked about; under a path, `sys:owner` counts when it owns that entry.
     */
    async allowed(principal: Principal, path: FilePath, query: AllowedQuery): Promise<Map<string, boolean>> {
      // Owning the entry reveals nothing new to its owner.
      const entry = path.path === '' ? null : await repo.get(path.path);
      return allowedOf(permissions, principal, query, ownedBy(principal, entry));
    },

    /** The store's permission entries (administrators: `getPermissions`). */
    async permissionEntries(principal: Principal): Promise<PermissionEntry[]> {
      await guard(ctx, 'getPermissions', principal);
      return permissionEntries(permissions);
    },

    /** The user name of the entry's owner; null when it has none (or the account is gone). */
    async getOwner(principal: Principal, path: FilePath): Promise<string | null> {
      const entry = await authorize(ctx, 'getOwner', principal, path);
      return entry?.owner ? await ctx.users.nameOf(entry.owner) : null;
    },

    /** The contents of a file the caller may `read` (the permission of `@read` and of a plain download). */
    async contents(principal: Principal, path: FilePath): Promise<FileContents> {
      const entry = await authorize(ctx, 'read', principal, path);
      if (entry === null || entry.type !== 'f' || entry.blobId === null) throw fileStoreErrors.not_a_file();
      const blobId = entry.blobId;
      return {
        name: entry.name,
        size: entry.size,
        mime: entry.mime,
        hash: entry.hash ?? '',
        mtime: entry.mtime,
        cache: entry.cache,
        open: (range) => blobs.get(blobId, range),
      };
    },
  };
}
