import { Readable } from 'node:stream';
import { grantsOf } from '../core/grants.js';
import type { UserDirectory } from '../core/user-directory.js';
import type { Clock } from '../core/clock.js';
import type { FileStoreOptions } from '../core/config.js';
import type { EventBus, FileEvent } from '../core/events.js';
import { commonErrors, isRoostError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import {
  servicePermissions,
  type PermissionChange,
  type PermissionStore,
  type Principal,
} from '../core/permissions.js';
import {
  allowedOf,
  changePermissions,
  permissionEntries,
  type AllowedQuery,
  type PermissionEntry,
} from '../core/permission-ops.js';
import { parseInput, invalidField } from '../core/validation.js';
import {
  BlobTooLargeError,
  HEAD_BYTES,
  type BlobStore,
  type ByteRange,
  type StoredBlob,
} from '../storage/blob-store.js';
import { childOf, isWithin, parsePath, type FilePath } from './file-paths.js';
import { fileStoreErrors } from './filestore-errors.js';
import {
  isMediaType,
  listInput,
  moveInput,
  newItemInput,
  removeItemInput,
  setItemInput,
  setOwnerInput,
  writeInput,
  type ContentsInput,
  type EntryChange,
  type EntryQuery,
  type MoveInput,
  type NewEntryInput,
  type OwnerInput,
  type RemoveInput,
} from './filestore-inputs.js';
import { fileStorePermissionDefaults, READ_OPERATIONS } from './filestore-permissions.js';
import { type createFileStoreRepo, DuplicatePathError, MissingParentError, type FileEntry } from './filestore-repo.js';
import { mimeOf } from './mime-sniff.js';

/** A body streamed by the transport (a raw `@write` body or a multipart file part). */
export interface Upload {
  stream: Readable;
  /** The media type the transport declared (Content-Type of a raw body, a part's type). */
  mime?: string | undefined;
  /** The announced size (Content-Length), when known: a larger file is refused unread. */
  size?: number | undefined;
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
  blobs: BlobStore;
  clock: Clock;
  permissionStore: PermissionStore;
  /** Told of every committed change to an entry (core/events.ts). */
  events: EventBus;
  /** Ids of names and names of ids, from the user service (core/user-directory.ts). */
  users: UserDirectory;
}

/** Types a transport declares when it does not know the file's own type. */
const UNINFORMATIVE_TYPES = new Set([
  '',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]);

/**
 * One file store: a tree of files and directories with owners, contents in the blob store.
 * Every operation takes the caller as a `Principal` and the path already parsed, checks its
 * input with its schema (filestore-inputs.ts) and answers a model; nothing here knows HTTP (the
 * original protocol's answers are made in http/protocol/filestore-protocol.ts). A file or
 * directory the caller may not read answers `not_found`, so its existence is not revealed.
 */
/** The root directory, as permissions see it: owned by nobody. */
const ROOT_OWNER = { owner: null };

export function createFileStoreService(deps: FileStoreServiceDeps) {
  const { repo, blobs, clock, options } = deps;
  const tell = (kind: Exclude<FileEvent['kind'], 'file.moved'>, path: FilePath) =>
    deps.events.emit({ kind, store: deps.name, path: path.path });
  const permissions = servicePermissions(deps.permissionStore, deps.name, fileStorePermissionDefaults(options.read));
  const maxBytes = options.maxFileBytes;

  const ownedBy = (principal: Principal, entry: FileEntry | null) =>
    entry !== null && principal.userId !== null && entry.owner === principal.userId;

  /** An operation that concerns no entry (permissions): the caller holds it or is refused. */
  async function guard(op: string, principal: Principal): Promise<void> {
    const grants = await grantsOf(permissions, principal);
    if (grants.scope(op) !== 'all') throw grants.refusal(op);
  }

  async function permissionEntriesOf(principal: Principal): Promise<PermissionEntry[]> {
    await guard('getPermissions', principal);
    return permissionEntries(permissions);
  }

  async function changePermissionsOf(
    principal: Principal,
    change: { permissions: PermissionChange | readonly PermissionChange[] },
  ): Promise<PermissionEntry[]> {
    await guard('setPermissions', principal);
    return changePermissions(permissions, change);
  }

  /**
   * Check `op` on the entry at `path` and return it (null for the root). A caller who could not
   * hold the permission on any entry is refused at once (401/403, which tells nothing about the
   * path). Otherwise a missing entry, or one the caller may not read, is `not_found`; one it may
   * read but not change is `not_allowed`.
   */
  async function authorize(op: string, principal: Principal, path: FilePath): Promise<FileEntry | null> {
    const grants = await grantsOf(permissions, principal);
    grants.require(op);
    const entry = path.path === '' ? null : await repo.get(path.path);
    if (path.path !== '' && entry === null) throw fileStoreErrors.not_found();
    // The root belongs to nobody: only a grant on every entry covers it.
    const target = entry ?? ROOT_OWNER;
    if (grants.covers(op, target)) return entry;
    const mayRead = !(READ_OPERATIONS as readonly string[]).includes(op) && grants.covers('getItem', target);
    throw mayRead ? grants.refusal(op) : fileStoreErrors.not_found();
  }

  const notRoot = (path: FilePath) => {
    if (path.path === '')
      throw fileStoreErrors.invalid_path({
        fields: [['path', 'invalid']],
        message: 'The root directory cannot be changed, moved or removed.',
      });
  };

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
    const now = clock.now();
    try {
      await repo.insert({
        id: newId(),
        path: path.path,
        parent: path.parent,
        name: path.name,
        type: 'f',
        size: blob.size,
        mime,
        cache,
        blobId: blob.id,
        hash: blob.hash,
        owner: principal.userId,
        ctime: now,
        mtime: now,
      });
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
    const entry = (await authorize('write', principal, path)) as FileEntry;
    if (entry.type !== 'f') throw fileStoreErrors.not_a_file();
    return entry;
  }

  async function replaceExisting(principal: Principal, path: FilePath, blob: StoredBlob, mime: string): Promise<void> {
    await replaceContents(await writableFile(principal, path), blob, mime);
  }

  /** The directory to create in: the root, or an existing directory the caller may create in. */
  async function directoryFor(op: string, principal: Principal, dir: FilePath): Promise<void> {
    const parent = await authorize(op, principal, dir);
    if (parent !== null && parent.type !== 'd') throw fileStoreErrors.not_a_directory();
  }

  return {
    name: deps.name,
    options,
    permissions,
    /** How many files the store holds and their bytes (the admin dashboard; no permission check: callers are administrators). */
    usage: () => deps.repo.usage(),

    /** The entry at `path`; null for the root directory. */
    async get(principal: Principal, path: FilePath): Promise<FileEntry | null> {
      return authorize('getItem', principal, path);
    },

    /** A new file or directory in the directory `dir`; the path of what was made. */
    async create(principal: Principal, dir: FilePath, input: NewEntryInput, upload?: Upload): Promise<FilePath> {
      const values = parseInput(newItemInput, input);
      await directoryFor('newItem', principal, dir);
      const path = childOf(dir, values.name);
      if (await repo.get(path.path)) throw invalidField('name', 'exists');
      const cache = values.cache ?? values.header ?? '';
      if (values.type === 'd') {
        const now = clock.now();
        try {
          await repo.insert({
            id: newId(),
            path: path.path,
            parent: path.parent,
            name: path.name,
            type: 'd',
            size: 0,
            mime: '',
            cache,
            blobId: null,
            hash: null,
            owner: principal.userId,
            ctime: now,
            mtime: now,
          });
        } catch (err) {
          if (err instanceof DuplicatePathError) throw invalidField('name', 'exists');
          if (err instanceof MissingParentError) throw fileStoreErrors.not_found();
          throw err;
        }
      } else {
        const blob =
          (await storeContents(upload, values.contents, values.decode)) ?? (await putBlob(Readable.from([])));
        await createFile(principal, path, blob, chooseMime(path.name, blob, values.mime, upload), cache);
      }
      tell('file.created', path);
      return path;
    },

    /** New contents or type of a file, or the cache header of a file or directory. */
    async update(principal: Principal, path: FilePath, input: EntryChange, upload?: Upload): Promise<void> {
      const values = parseInput(setItemInput, input);
      notRoot(path);
      const entry = (await authorize('setItem', principal, path)) as FileEntry;
      const cache = values.cache ?? values.header;
      if (entry.type === 'd') {
        if (values.contents !== undefined || upload)
          throw fileStoreErrors.not_a_file({ fields: [['contents', 'invalid']] });
        if (cache !== undefined) {
          await repo.updateMeta(entry.id, { cache, mtime: clock.now() });
          tell('file.written', path);
        }
        return;
      }
      const blob = await storeContents(upload, values.contents, values.decode);
      if (blob) await replaceContents(entry, blob, chooseMime(entry.name, blob, values.mime, upload));
      const meta = {
        ...(values.mime !== undefined && !blob ? { mime: values.mime } : {}),
        ...(cache !== undefined ? { cache } : {}),
      };
      if (Object.keys(meta).length > 0) await repo.updateMeta(entry.id, { ...meta, mtime: clock.now() });
      if (blob || Object.keys(meta).length > 0) tell('file.written', path);
    },

    /** New contents of a file; a file that does not exist yet is created (with `newItem`'s permission). */
    async write(principal: Principal, path: FilePath, input: ContentsInput, upload?: Upload): Promise<void> {
      const values = parseInput(writeInput, input);
      notRoot(path);
      if (!upload && values.contents === undefined)
        throw commonErrors.validation_failure({ fields: [['contents', 'required']] });
      const existing = await repo.get(path.path);
      if (existing === null) {
        await directoryFor('newItem', principal, parsePath(path.parent));
        const blob = (await storeContents(upload, values.contents, values.decode)) as StoredBlob;
        const mime = chooseMime(path.name, blob, values.mime, upload);
        if (await insertFile(principal, path, blob, mime, '')) {
          tell('file.created', path);
          return;
        }
        // A concurrent write created the file first: create-or-replace replaces it, as setItem
        // does in the data store, if the caller may write it.
        await replaceExisting(principal, path, blob, mime).catch(async (err: unknown) => {
          await dropBlob(blob.id);
          throw err;
        });
        tell('file.written', path);
        return;
      }
      const entry = await writableFile(principal, path);
      const blob = (await storeContents(upload, values.contents, values.decode)) as StoredBlob;
      await replaceContents(entry, blob, chooseMime(entry.name, blob, values.mime, upload));
      tell('file.written', path);
    },

    /** Moves (renames) a file or a directory with everything in it. */
    async move(principal: Principal, path: FilePath, input: MoveInput): Promise<void> {
      const { newpath } = parseInput(moveInput, input);
      notRoot(path);
      await authorize('move', principal, path);
      const target = parsePath(newpath, 'newpath');
      if (target.path === '' || isWithin(target, path)) {
        throw commonErrors.validation_failure({
          fields: [['newpath', 'invalid']],
          message: 'A path cannot move onto the root or into itself.',
        });
      }
      // Moving into a directory creates there: it needs what newItem there needs.
      try {
        await directoryFor('newItem', principal, parsePath(target.parent));
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
      deps.events.emit({ kind: 'file.moved', store: deps.name, path: path.path, to: target.path });
    },

    /** Removes a file, or a directory (with what it holds only when `recursive`); how many entries went. */
    async remove(principal: Principal, path: FilePath, input: RemoveInput): Promise<number> {
      const { recursive } = parseInput(removeItemInput, input);
      notRoot(path);
      const entry = (await authorize('removeItem', principal, path)) as FileEntry;
      if (entry.type === 'd' && !recursive && (await repo.hasChildren(entry.path))) throw fileStoreErrors.not_empty();
      const { count, blobIds } = await repo.removeTree(entry.path);
      await Promise.all(blobIds.map(dropBlob));
      tell('file.removed', path);
      return count;
    },

    async list(principal: Principal, path: FilePath, input: EntryQuery): Promise<EntryPage> {
      const query = parseInput(listInput, input);
      const dir = await authorize('list', principal, path);
      if (dir !== null && dir.type !== 'd') throw fileStoreErrors.not_a_directory();
      const size = Math.min(query.size ?? options.defaultPageSize, options.maxPageSize);
      const { entries, total } = await repo.list(path.path, query, size);
      return { entries, start: query.start, size, total };
    },

    /** Whether the caller holds each permission asked about; under a path, `sys:owner` counts when it owns that entry. */
    async allowed(principal: Principal, path: FilePath, query: AllowedQuery): Promise<Map<string, boolean>> {
      // Owning the entry reveals nothing new to its owner.
      const entry = path.path === '' ? null : await repo.get(path.path);
      return allowedOf(permissions, principal, query, ownedBy(principal, entry));
    },

    /** The store's permission entries (administrators: `getPermissions`). */
    permissionEntries: permissionEntriesOf,
    /** Changes the store's permission entries (administrators: `setPermissions`); the entries after the change. */
    changePermissions: changePermissionsOf,

    /** The user name of the entry's owner; null when it has none (or the account is gone). */
    async getOwner(principal: Principal, path: FilePath): Promise<string | null> {
      const entry = await authorize('getOwner', principal, path);
      return entry?.owner ? await deps.users.nameOf(entry.owner) : null;
    },

    async setOwner(principal: Principal, path: FilePath, input: OwnerInput): Promise<void> {
      const owner = parseInput(setOwnerInput, input);
      notRoot(path);
      const entry = (await authorize('setOwner', principal, path)) as FileEntry;
      const userId = owner === undefined ? null : await deps.users.idOf(owner);
      if (!userId)
        throw commonErrors.validation_failure({
          fields: [['owner', 'unknown_user']],
          message: 'There is no such user.',
        });
      await repo.setOwner(entry.id, userId);
      tell('file.owner_changed', path);
    },

    /** Answers every caller (`ping` has no permission in the original). */
    async ping(): Promise<void> {},

    /** The contents of a file the caller may `read` (the permission of `@read` and of a plain download). */
    async contents(principal: Principal, path: FilePath): Promise<FileContents> {
      const entry = await authorize('read', principal, path);
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

export type FileStore = ReturnType<typeof createFileStoreService>;
