import { join } from 'node:path';
import type { BlobStoreOptions, Config } from '../core/config.js';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './local-blob-store.js';
import { createS3BlobStore, type S3Keys } from './s3-blob-store.js';

/** The blob store of each configured file store; stores with the same settings share one. */
export interface BlobStores {
  forStore(store: string): BlobStore;
  /** Each distinct blob store once. */
  all(): BlobStore[];
  close(): void;
}

/** The access key of an S3 bucket set at run time (the settings page), if any. */
export type LiveS3Keys = (bucket: string) => Promise<S3Keys | undefined>;

export function openBlobStore(
  options: BlobStoreOptions,
  dataDir: string,
  durability: 'full' | 'fast' = 'full',
  liveKeys?: LiveS3Keys,
): BlobStore & { close(): void } {
  return options.kind === 's3'
    ? createS3BlobStore(options, liveKeys ? () => liveKeys(options.bucket) : undefined)
    : createLocalBlobStore(options.dir ?? join(dataDir, 'blobs'), { syncDirectories: durability === 'full' });
}

/** Each file store's blob store; `liveKeys` (services.ts: the runtime settings) over the configured S3 keys. */
export function openBlobStores(config: Config, liveKeys?: LiveS3Keys): BlobStores {
  const opened = new Map<string, BlobStore & { close(): void }>();
  const byStore = new Map<string, BlobStore>();
  for (const [name, store] of Object.entries(config.fileStores)) {
    const options = store.blobs ?? config.blobs;
    const key = JSON.stringify(options);
    let blobs = opened.get(key);
    if (!blobs) {
      blobs = openBlobStore(options, config.dataDir, config.durability, liveKeys);
      opened.set(key, blobs);
    }
    byStore.set(name, blobs);
  }
  return {
    all: () => [...opened.values()],
    forStore(store) {
      const blobs = byStore.get(store);
      if (!blobs) throw new Error(`no file store ${store}`);
      return blobs;
    },
    close() {
      for (const blobs of opened.values()) blobs.close();
    },
  };
}
