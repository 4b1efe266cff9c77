import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import type { PermissionStore } from '../core/permissions.js';
import type { Database } from '../storage/schema.js';

export interface FileStoreDeps {
  db: Kysely<Database>;
  clock: Clock;
  permissionStore: PermissionStore;
  config: Config;
}

/** Every configured file store, by name. The file store issue fills in the operations. */
export interface FileStores {
  readonly names: readonly string[];
  close(): Promise<void>;
}

export function createFileStores(deps: FileStoreDeps): FileStores {
  return { names: Object.keys(deps.config.fileStores), async close() {} };
}
