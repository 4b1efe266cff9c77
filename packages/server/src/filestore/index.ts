import { NO_HOOKS, type HookRunner } from '../core/hooks.js';
import { storeRegistry, type StoreRegistry } from '../core/store-registry.js';
import type { UserDirectory } from '../core/user-directory.js';
import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import type { EventBus } from '../core/events.js';
import type { PermissionStore } from '../core/permissions.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { PartialUploads } from '../storage/partial-uploads.js';
import type { Database } from '../storage/schema.js';
import { createFileStoreRepo } from './filestore-repo.js';
import { createDirectUploadRepo } from './direct-upload-repo.js';
import { createFileStoreService, type FileStore } from './filestore-service.js';

export type { FileStore, FileContents, Upload, EntryPage } from './filestore-service.js';
export type { FileEntry } from './filestore-repo.js';
export { FILE_EVENTS, isFileEvent, type FileEvent } from './file-events.js';
export type * from './filestore-inputs.js';
export {
  listInput,
  moveInput,
  newItemInput,
  removeItemInput,
  setItemInput,
  setOwnerInput,
  writeInput,
} from './filestore-inputs.js';
export { childOf, parsePath, pathOf, ROOT, API_SEGMENT, type FilePath } from './file-paths.js';
export { fileStoreErrors } from './filestore-errors.js';
export { directFinishInput, directUploadInput } from './direct-inputs.js';

export interface FileStoreDeps {
  db: Kysely<Database>;
  /** Where reads that may be a little stale run (storage/replica-reads.ts); `db` when absent. */
  reads?: Kysely<Database>;
  clock: Clock;
  permissionStore: PermissionStore;
  config: Config;
  /** Where each store's contents live. */
  blobs: { forStore(store: string): BlobStore };
  events: EventBus;
  /** Ids of names and names of ids, from the user service (core/user-directory.ts). */
  users: UserDirectory;
  /** The team's hooks on files (file-hooks.ts); none by default. */
  hooks?: HookRunner;
  /** Where each store's resumable uploads wait until complete (storage/partial-uploads.ts); none: no tus. */
  uploads?: { forStore(store: string): PartialUploads };
}

/** Every configured file store, by name. */
export type FileStores = StoreRegistry<FileStore>;

export function createFileStores(deps: FileStoreDeps): FileStores {
  return storeRegistry(deps.config.fileStores, (name, options) =>
    createFileStoreService({
      name,
      options,
      repo: createFileStoreRepo(deps.db, name),
      ...(deps.reads && deps.reads !== deps.db ? { readRepo: createFileStoreRepo(deps.reads, name) } : {}),
      blobs: deps.blobs.forStore(name),
      clock: deps.clock,
      permissionStore: deps.permissionStore,
      events: deps.events,
      users: deps.users,
      hooks: deps.hooks ?? NO_HOOKS,
      uploads: deps.uploads?.forStore(name),
      directUploads: createDirectUploadRepo(deps.db, name),
    }),
  );
}
// The file stores' hook points (declaration merging into core/hooks.ts).
import './file-hooks.js';
