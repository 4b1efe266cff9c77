import { sniffMime } from '../mime-sniff.js';
import type { ThumbSpec } from './thumb-spec.js';

/**
 * Which images have thumbnails and in which formats they are sent. AVIF and WebP go to a client
 * that accepts them (the route negotiates by `Accept`, http/routes/filestore-routes.ts); every
 * other client gets the image's own kind: JPEG for a JPEG, PNG (lossless, with its alpha) for
 * the others.
 */
export type ThumbFormat = 'avif' | 'webp' | 'jpeg' | 'png';

/**
 * The types sharp reads with the libvips of its prebuilt binaries. Not SVG (a document that can
 * name other files and fonts) nor HEIC (not in those binaries).
 */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);

/** The stored media type without its parameters, lowercased. */
const essence = (mime: string) => (mime.split(';')[0] ?? '').trim().toLowerCase();

export const isThumbnailable = (mime: string): boolean => IMAGE_TYPES.has(essence(mime));

const at = (bytes: Buffer, offset: number, text: string) =>
  bytes.subarray(offset, offset + text.length).toString('latin1') === text;

/**
 * Whether the first bytes are of a kind of IMAGE_TYPES. sharp reads whatever its loaders know,
 * by the bytes, not by the stored type: an SVG document stored as `image/png` would be rendered
 * by librsvg, which the list above leaves out. PNG, JPEG, GIF and WebP by their signatures
 * (mime-sniff.ts), TIFF by its byte order mark, AVIF by its ISO box `ftyp`.
 */
export function hasImageSignature(head: Buffer): boolean {
  const sniffed = sniffMime(head, false);
  if (sniffed.startsWith('image/')) return true;
  return ['II*\0', 'MM\0*', 'II+\0', 'MM\0+'].some((mark) => at(head, 0, mark)) || at(head, 4, 'ftyp');
}

/**
 * The most pixels an AVIF thumbnail may hold. sharp's time limit does not stop the AVIF encoder
 * (libheif reports no progress to libvips: a 3000×3000 AVIF ran 9 s past a 1 s limit), so AVIF
 * is offered only for thumbnails whose box bounds their work; larger ones go as WebP.
 */
const AVIF_MAX_PIXELS = 1_000_000;

/** The media types the thumbnail `spec` of an image of type `mime` may be sent as: the fallback first. */
export function thumbTypesOf(mime: string, spec: ThumbSpec): string[] {
  const fallback = essence(mime) === 'image/jpeg' ? 'image/jpeg' : 'image/png';
  const bounded = spec.width > 0 && spec.height > 0 && spec.width * spec.height <= AVIF_MAX_PIXELS;
  return bounded ? [fallback, 'image/avif', 'image/webp'] : [fallback, 'image/webp'];
}

export function formatOf(type: string): ThumbFormat {
  const format = type.slice('image/'.length);
  if (format === 'avif' || format === 'webp' || format === 'jpeg' || format === 'png') return format;
  throw new Error(`not a thumbnail type: ${type}`);
}
