import { fileHooked, filesAfter, removalHooked } from './file-hooks.js';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { commonErrors, isRoostError } from '../core/errors.js';
import { changePermissions, type PermissionEntry } from '../core/permission-ops.js';
import type { PermissionChange, Principal } from '../core/permissions.js';
import { invalidField, parseInput } from '../core/validation.js';
import type { StoredBlob } from '../storage/blob-store.js';
import { childOf, isWithin, parsePath, type FilePath } from './file-paths.js';
import { contentsOps } from './filestore-contents.js';
import { authorize, directoryFor, guard, newEntry, notRoot, tell, type FileStoreContext } from './filestore-context.js';
import { fileStoreErrors } from './filestore-errors.js';
import {
  moveInput,
  newItemInput,
  removeItemInput,
  setItemInput,
  setOwnerInput,
  writeInput,
  type ContentsInput,
  type EntryChange,
  type MoveInput,
  type NewEntryInput,
  type OwnerInput,
  type RemoveInput,
} from './filestore-inputs.js';
import { DuplicatePathError, MissingParentError, type FileEntry } from './filestore-repo.js';
import type { Upload } from './filestore-service.js';

/** The operations that change the tree, each told on the bus once it committed. */
export function writeOps(ctx: FileStoreContext) {
  const { repo, clock, permissions } = ctx;
  // How contents are stored, entered and replaced (filestore-contents.ts).
  const contents = contentsOps(ctx);

  return {
    /** A new file or directory in the directory `dir`; the path of what was made. */
    async create(principal: Principal, dir: FilePath, input: NewEntryInput, upload?: Upload): Promise<FilePath> {
      const values = parseInput(newItemInput, input);
      await directoryFor(ctx, 'newItem', principal, dir);
      const path = childOf(dir, values.name);
      if (await repo.get(path.path)) throw invalidField('name', 'exists');
      // The hooks run before any contents are stored (file-hooks.ts).
      const meta = await fileHooked(
        ctx,
        'file.create',
        principal,
        path,
        {
          mime: values.mime,
          cache: values.cache ?? values.header,
        },
        values.type === 'd',
      );
      values.mime = meta.mime;
      const cache = meta.cache ?? '';
      if (values.type === 'd') {
        // A directory takes no contents, but a file part sent along is read to its end first: a
        // body that fails on the way (cut short) then makes nothing (http/multipart-upload.ts).
        if (upload) await finished(upload.stream.resume());
        try {
          await repo.insert(
            newEntry(ctx, principal, path, { type: 'd', size: 0, mime: '', cache, blobId: null, hash: null }),
            filesAfter(ctx, principal, 'file.create', path, true),
          );
        } catch (err) {
          if (err instanceof DuplicatePathError) throw invalidField('name', 'exists');
          if (err instanceof MissingParentError) throw fileStoreErrors.not_found();
          throw err;
        }
      } else {
        const blob =
          (await contents.storeContents(upload, values.contents, values.decode)) ??
          (await contents.putBlob(Readable.from([])));
        await contents.createFile(
          principal,
          path,
          blob,
          contents.chooseMime(path.name, blob, values.mime, upload),
          cache,
        );
      }
      tell(ctx, 'file.created', principal, path);
      return path;
    },

    /** New contents or type of a file, or the cache header of a file or directory. */
    async update(principal: Principal, path: FilePath, input: EntryChange, upload?: Upload): Promise<void> {
      const values = parseInput(setItemInput, input);
      notRoot(path);
      const entry = (await authorize(ctx, 'setItem', principal, path)) as FileEntry;
      const hooked = await fileHooked(ctx, 'file.update', principal, path, {
        mime: values.mime,
        cache: values.cache ?? values.header,
      });
      values.mime = hooked.mime;
      const cache = hooked.cache;
      if (entry.type === 'd') {
        if (values.contents !== undefined || upload)
          throw fileStoreErrors.not_a_file({ fields: [['contents', 'invalid']] });
        if (cache !== undefined) {
          await repo.updateMeta(entry.id, { cache, mtime: clock.now() });
          tell(ctx, 'file.written', principal, path);
        }
        return;
      }
      const blob = await contents.storeContents(upload, values.contents, values.decode);
      if (blob) await contents.replaceContents(entry, blob, contents.chooseMime(entry.name, blob, values.mime, upload));
      const meta = {
        ...(values.mime !== undefined && !blob ? { mime: values.mime } : {}),
        ...(cache !== undefined ? { cache } : {}),
      };
      if (Object.keys(meta).length > 0) await repo.updateMeta(entry.id, { ...meta, mtime: clock.now() });
      if (blob || Object.keys(meta).length > 0) tell(ctx, 'file.written', principal, path);
    },

    /** New contents of a file; a file that does not exist yet is created (with `newItem`'s permission). */
    async write(principal: Principal, path: FilePath, input: ContentsInput, upload?: Upload): Promise<void> {
      const values = parseInput(writeInput, input);
      notRoot(path);
      if (!upload && values.contents === undefined)
        throw commonErrors.validation_failure({ fields: [['contents', 'required']] });
      const existing = await repo.get(path.path);
      const meta = await fileHooked(ctx, existing ? 'file.update' : 'file.create', principal, path, {
        mime: values.mime,
      });
      values.mime = meta.mime;
      if (existing === null) {
        await directoryFor(ctx, 'newItem', principal, parsePath(path.parent));
        const blob = (await contents.storeContents(upload, values.contents, values.decode)) as StoredBlob;
        const mime = contents.chooseMime(path.name, blob, values.mime, upload);
        if (await contents.insertFile(principal, path, blob, mime, '')) {
          tell(ctx, 'file.created', principal, path);
          return;
        }
        // A concurrent write created the file first: create-or-replace replaces it, as setItem
        // does in the data store, if the caller may write it.
        await contents.replaceExisting(principal, path, blob, mime).catch(async (err: unknown) => {
          await contents.dropBlob(blob.id);
          throw err;
        });
        tell(ctx, 'file.written', principal, path);
        return;
      }
      const entry = await contents.writableFile(principal, path);
      const blob = (await contents.storeContents(upload, values.contents, values.decode)) as StoredBlob;
      await contents.replaceContents(entry, blob, contents.chooseMime(entry.name, blob, values.mime, upload));
      tell(ctx, 'file.written', principal, path);
    },

    /** Moves (renames) a file or a directory with everything in it. */
    async move(principal: Principal, path: FilePath, input: MoveInput): Promise<void> {
      const { newpath } = parseInput(moveInput, input);
      notRoot(path);
      await authorize(ctx, 'move', principal, path);
      const target = parsePath(newpath, 'newpath');
      if (target.path === '' || isWithin(target, path)) {
        throw commonErrors.validation_failure({
          fields: [['newpath', 'invalid']],
          message: 'A path cannot move onto the root or into itself.',
        });
      }
      // Moving into a directory creates there: it needs what newItem there needs.
      try {
        await directoryFor(ctx, 'newItem', principal, parsePath(target.parent));
      } catch (err) {
        if (isRoostError(err) && err.code === 'not_found')
          throw fileStoreErrors.not_found({
            message: 'The directory of newpath does not exist.',
            fields: [['newpath', 'not_found']],
          });
        throw err;
      }
      try {
        if (await repo.get(target.path)) throw new DuplicatePathError(target.path);
        await repo.moveTree(path.path, target, clock.now());
      } catch (err) {
        if (err instanceof DuplicatePathError) throw invalidField('newpath', 'exists');
        if (err instanceof MissingParentError)
          throw fileStoreErrors.not_found({
            message: 'The directory of newpath does not exist.',
            fields: [['newpath', 'not_found']],
          });
        throw err;
      }
      ctx.events.emit({ kind: 'file.moved', store: ctx.name, path: path.path, to: target.path }, principal);
    },

    /** Removes a file, or a directory (with what it holds only when `recursive`); how many entries went. */
    async remove(principal: Principal, path: FilePath, input: RemoveInput): Promise<number> {
      const { recursive } = parseInput(removeItemInput, input);
      notRoot(path);
      const entry = (await authorize(ctx, 'removeItem', principal, path)) as FileEntry;
      await removalHooked(ctx, principal, path, recursive);
      if (entry.type === 'd' && !recursive && (await repo.hasChildren(entry.path))) throw fileStoreErrors.not_empty();
      const { count, blobIds } = await repo.removeTree(
        entry.path,
        filesAfter(ctx, principal, 'file.remove', path, entry.type === 'd'),
      );
      await Promise.all(blobIds.map(contents.dropBlob));
      // Nothing deleted: another caller removed it meanwhile (both found it first), and told it.
      if (count > 0) tell(ctx, 'file.removed', principal, path, entry);
      return count;
    },

    async setOwner(principal: Principal, path: FilePath, input: OwnerInput): Promise<void> {
      const owner = parseInput(setOwnerInput, input);
      notRoot(path);
      const entry = (await authorize(ctx, 'setOwner', principal, path)) as FileEntry;
      const userId = owner === undefined ? null : await ctx.users.idOf(owner);
      if (!userId)
        throw commonErrors.validation_failure({
          fields: [['owner', 'unknown_user']],
          message: 'There is no such user.',
        });
      await repo.setOwner(entry.id, userId);
      tell(ctx, 'file.owner_changed', principal, path, entry);
    },

    /** Changes the store's permission entries (administrators: `setPermissions`); the entries after the change. */
    async changePermissions(
      principal: Principal,
      change: { permissions: PermissionChange | readonly PermissionChange[] },
    ): Promise<PermissionEntry[]> {
      await guard(ctx, 'setPermissions', principal);
      return changePermissions(permissions, change);
    },
  };
}
