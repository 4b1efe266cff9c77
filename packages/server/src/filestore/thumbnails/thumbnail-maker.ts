import type sharpModule from 'sharp';
import { onFirstUse } from '../../core/on-first-use.js';
import { hasImageSignature, type ThumbFormat } from './thumb-format.js';
import type { ThumbSpec } from './thumb-spec.js';
import { thumbnailErrors } from './thumbnail-errors.js';

/** sharp (libvips, a native addon) loads with the first thumbnail, not with every start: about 0.1 s of CPU. */
const sharp = onFirstUse<typeof sharpModule>('sharp');

export interface ThumbLimits {
  /** Width × height as the image declares it, checked by sharp before decoding (`limitInputPixels`). */
  maxInputPixels: number;
  /** sharp's `timeout`: libvips stops the work after this long. */
  timeoutSeconds: number;
}

/**
 * Settings per format: small files that look right at thumbnail sizes. AVIF's `effort` below
 * its default 4 (libaom is slow; 2 keeps a 300×300 thumbnail near WebP's time).
 */
const ENCODINGS = {
  avif: { quality: 50, effort: 2 },
  webp: { quality: 80 },
  jpeg: { quality: 80, mozjpeg: true },
  png: { compressionLevel: 6 },
} as const;

/**
 * One thumbnail of `image`, made by sharp: oriented by its EXIF, scaled (never enlarged) and
 * encoded as `format`. sharp reads the header first, so an image that declares more than
 * `maxInputPixels` (a decompression bomb: a few bytes of PNG announcing 100 000 × 100 000) is
 * refused before any pixel is decoded. The image comes whole (sharp buffers a stream anyway).
 */
export async function makeThumbnail(
  image: Buffer,
  spec: ThumbSpec,
  format: ThumbFormat,
  limits: ThumbLimits,
): Promise<Buffer> {
  if (!hasImageSignature(image))
    throw thumbnailErrors.not_an_image({ message: 'The file is not an image of a kind that has thumbnails.' });
  const input = () =>
    sharp()(image, { limitInputPixels: limits.maxInputPixels, sequentialRead: true, autoOrient: true });
  try {
    // A crop needs the image's size (`boxOf`); a fit or a ratio does not.
    const size = spec.fit === 'cover' ? (await input().metadata()).autoOrient : null;
    return await input()
      .resize({ ...boxOf(spec, size), fit: spec.fit, position: spec.position, withoutEnlargement: true })
      .toFormat(format, ENCODINGS[format])
      .timeout({ seconds: limits.timeoutSeconds })
      .toBuffer();
  } catch (err) {
    throw refusalOf(err);
  }
}

/**
 * The box to resize into. A crop larger than the image in a side shrinks, keeping its ratio, to
 * the largest that fits in the image: `200x200` of a 100 × 400 image is 100 × 100 (sharp's
 * `withoutEnlargement` would leave the image uncropped).
 */
function boxOf(spec: ThumbSpec, image: Size | null): Partial<Size> {
  if (image === null)
    return { ...(spec.width > 0 ? { width: spec.width } : {}), ...(spec.height > 0 ? { height: spec.height } : {}) };
  const scale = Math.min(1, image.width / spec.width, image.height / spec.height);
  return {
    width: Math.max(1, Math.round(spec.width * scale)),
    height: Math.max(1, Math.round(spec.height * scale)),
  };
}

interface Size {
  width: number;
  height: number;
}

/** sharp's failure as a code of thumbnail-errors.ts. */
function refusalOf(err: unknown): unknown {
  const text = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(text)) return thumbnailErrors.image_too_large({ cause: err });
  if (/^timeout/i.test(text)) return thumbnailErrors.image_too_slow({ cause: err });
  return thumbnailErrors.not_an_image({
    cause: err,
    message: 'The file could not be read as an image; it has no thumbnails.',
  });
}
