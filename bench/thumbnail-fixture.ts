// The images both thumbnail makers work on (bench/suite-thumbnails.ts): the same bytes in every
// process, computed rather than stored. Two sets: small images (1200 × 900, where Roost's fixed
// cost per request weighs most) and phone photos (4000 × 3000, 12 MP). Each request of the "new
// thumbnail" rows takes the next (image, size) pair of its set, so none is answered from what an
// earlier one made.
import sharp from 'sharp';

export interface ImageSet {
  name: 'small' | 'photo';
  count: number;
  width: number;
  height: number;
}

export const IMAGE_SETS: readonly ImageSet[] = [
  { name: 'small', count: 80, width: 1200, height: 900 },
  { name: 'photo', count: 12, width: 4000, height: 3000 },
];

/** 60 sizes a store lists: crops from 200x150 to 259x209. */
export const THUMB_SIZES = Array.from({ length: 60 }, (_, i) => `${200 + i}x${150 + i}`);

/** Pairs of a set before they repeat: more than a run asks for. */
export const pairsOf = (set: ImageSet) => set.count * THUMB_SIZES.length;

export const imageName = (set: ImageSet, i: number) => `${set.name}-${String(i).padStart(3, '0')}.jpg`;

/** The n-th (image, size) pair of a set. */
export function pairAt(set: ImageSet, n: number): { image: number; size: string; width: number; height: number } {
  const k = n % pairsOf(set);
  const size = THUMB_SIZES[Math.floor(k / set.count)] as string;
  const [width, height] = size.split('x').map(Number) as [number, number];
  return { image: k % set.count, size, width, height };
}

/**
 * A photo-like JPEG of the set's size, different for each `i`: colour waves and grain computed at
 * a quarter of the size (a JavaScript loop over 12 MP would take seconds), scaled up by libvips.
 */
async function benchImage(set: ImageSet, i: number): Promise<Buffer> {
  const width = set.width / 4;
  const height = set.height / 4;
  const pixels = Buffer.alloc(width * height * 3);
  let grain = 12345 + i;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      grain = (grain * 1103515245 + 12345) & 0x7fffffff;
      const at = (y * width + x) * 3;
      const noise = (grain >> 16) % 24;
      pixels[at] = 110 + 80 * Math.sin((x + i * 7) / 22) + noise;
      pixels[at + 1] = 110 + 80 * Math.sin((y + i * 11) / 17) + noise;
      pixels[at + 2] = 110 + 80 * Math.sin((x + y + i * 13) / 32) + noise;
    }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .resize(set.width, set.height, { kernel: 'cubic' })
    .jpeg({ quality: 85 })
    .toBuffer();
}

export const benchImages = (set: ImageSet) =>
  Promise.all(Array.from({ length: set.count }, (_, i) => benchImage(set, i)));
