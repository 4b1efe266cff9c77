import { Readable } from 'node:stream';
import pLimit from 'p-limit';
import { Cache } from '../../core/cache.js';
import type { Principal } from '../../core/permissions.js';
import { processStats } from '../../core/process-stats.js';
import type { FilePath } from '../file-paths.js';
import { authorize, type FileStoreContext } from '../filestore-context.js';
import { fileStoreErrors } from '../filestore-errors.js';
import type { FileContents } from '../filestore-service.js';
import { formatOf, isThumbnailable, thumbTypesOf, type ThumbFormat } from './thumb-format.js';
import { parseThumb, type ThumbSpec } from './thumb-spec.js';
import { thumbnailErrors } from './thumbnail-errors.js';
import { makeThumbnail } from './thumbnail-maker.js';

/** How long a thumbnail answers from memory: blobs never change, so this only bounds what memory holds. */
const MEMORY_MS = 10 * 60 * 1000;

/**
 * Thumbnails of a store's images (docs/filestore.md, "Thumbnails"). Each is made once, by sharp,
 * and kept as a derived blob beside its image in the store's blob store (storage/blob-store.ts
 * `putDerived`), so it goes with the image: an overwrite makes a new blob and drops the old one
 * with its thumbnails, a removal drops both. Keyed by the image's blob id, a thumbnail can never
 * be one of older contents. Requests for one thumbnail that come while it is made wait for that
 * one run (the `Cache`'s shared loads, core/cache.ts), and recent ones answer from memory.
 */
export function thumbnailOps(ctx: FileStoreContext) {
  const { blobs } = ctx;
  const options = ctx.options.thumbnails;
  const sizes = new Set(options.sizes);
  // Each run holds its image whole (up to `maxInputBytes`) and its decoded pixels: a bound on
  // runs at once is a bound on memory, whatever the number of requests for new thumbnails.
  const running = pLimit(options.concurrency);
  const kept = new Cache<Buffer>({
    clock: ctx.clock,
    ttlMs: options.memoryBytes > 0 ? MEMORY_MS : 0,
    maxSize: options.memoryBytes,
    sizeOf: (bytes) => bytes.length,
  });

  /** The thumbnail kept beside blob `blobId`, or made now and kept there. */
  async function loadThumbnail(blobId: string, name: string, spec: ThumbSpec, format: ThumbFormat): Promise<Buffer> {
    const stored = await blobs.getDerived(blobId, name);
    if (stored) return stored;
    const made = await running(async () => makeThumbnail(await blobs.getBuffer(blobId), spec, format, options));
    processStats.thumbnailsMade++;
    // A failure to keep it costs only a second run later; the caller still gets its thumbnail.
    await blobs.putDerived(blobId, name, made).catch(() => false);
    return made;
  }

  return {
    /**
     * The thumbnail `thumb` (thumb-spec.ts) of an image the caller may `read`, as a download
     * answers it; `pickType` chooses among the media types it may be sent as (the first is the
     * one for any client; the route asks the request's `Accept`).
     */
    async thumbnail(
      principal: Principal,
      path: FilePath,
      thumb: string,
      pickType: (types: readonly string[]) => string | undefined,
    ): Promise<FileContents> {
      const entry = await authorize(ctx, 'read', principal, path);
      if (entry === null || entry.type !== 'f' || entry.blobId === null) throw fileStoreErrors.not_a_file();
      const spec = sizes.has(thumb) ? parseThumb(thumb) : null;
      if (!spec)
        throw thumbnailErrors.thumb_not_allowed({
          fields: [['thumb', 'not_allowed']],
          message:
            sizes.size === 0
              ? 'This store makes no thumbnails.'
              : `This store makes thumbnails of these sizes only: ${[...sizes].join(', ')}.`,
        });
      if (!isThumbnailable(entry.mime)) throw thumbnailErrors.not_an_image();
      // The image is read into memory to be decoded (thumbnail-maker.ts): its size is bounded first.
      if (entry.size > options.maxInputBytes)
        throw thumbnailErrors.image_too_large({
          message: `The image is larger than this store makes thumbnails of (${options.maxInputBytes} bytes).`,
        });
      const types = thumbTypesOf(entry.mime, spec);
      const type = pickType(types) ?? (types[0] as string);
      const format = formatOf(type);
      const name = `${spec.text}.${format}`;
      const blobId = entry.blobId;
      const bytes = await kept.read(`${blobId}/${name}`, () => loadThumbnail(blobId, name, spec, format));
      return {
        name: entry.name,
        size: bytes.length,
        mime: type,
        // The image's hash and the thumbnail's name: equal images have equal thumbnails' ETags.
        hash: `${entry.hash ?? blobId}.${name}`,
        mtime: entry.mtime,
        cache: entry.cache,
        open: async (range) => Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]),
      };
    },
  };
}
