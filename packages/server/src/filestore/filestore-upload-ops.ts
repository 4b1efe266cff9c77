import { Readable } from 'node:stream';
import type { Principal } from '../core/permissions.js';
import { parsePath, type FilePath } from './file-paths.js';
import { contentsOps } from './filestore-contents.js';
import { directoryFor, notRoot, type FileStoreContext } from './filestore-context.js';
import { writeOps } from './filestore-write-ops.js';

/**
 * Resumable uploads (the tus protocol, http/tus-uploads.ts; docs/filestore.md "Resumable
 * uploads"): an upload is a `write` whose bytes arrive over many requests. It is checked when it
 * starts, as the write will be (permission, size), and entered by that very `write` once
 * complete: the same hooks, events, webhooks and counts as a streamed `@write`.
 */
export function uploadOps(ctx: FileStoreContext) {
  const contents = contentsOps(ctx);
  const { write } = writeOps(ctx);
  return {
    /**
     * May the caller upload `size` bytes (undefined: not told yet) to `path`? What `write` will
     * check, before any byte is stored: the path, the store's size limit, `write` on an existing
     * file or `newItem` in the directory of a new one.
     */
    async checkUpload(principal: Principal, path: FilePath, size: number | undefined): Promise<void> {
      notRoot(path);
      if (size !== undefined && size > ctx.options.maxFileBytes) throw contents.tooLarge();
      if (await ctx.repo.get(path.path)) await contents.writableFile(principal, path);
      else await directoryFor(ctx, 'newItem', principal, parsePath(path.parent));
    },

    /**
     * The complete upload `uploadId` made a blob (storage/partial-uploads.ts) and entered at
     * `path` by `write`, which checks again: a permission may have gone meanwhile. Refused, the
     * blob is dropped: nothing is left behind.
     */
    async finishUpload(
      principal: Principal,
      path: FilePath,
      uploadId: string,
      mime: string | undefined,
    ): Promise<void> {
      if (!ctx.uploads) throw new Error(`the file store ${ctx.name} takes no resumable uploads`);
      const blob = await ctx.uploads.adopt(uploadId, ctx.options.maxFileBytes);
      try {
        await write(principal, path, {}, { stream: Readable.from([]), stored: blob, mime });
      } catch (err) {
        // Dropping twice is harmless: `write` drops the blob itself on some refusals.
        await contents.dropBlob(blob.id);
        throw err;
      }
    },
  };
}
