// sharp alone, the ceiling of Roost's thumbnails (bench/suite-thumbnails.ts): in a child process
// of its own, on the IPC message `{loop, seconds}` (the loop is a set's name) it makes thumbnails
// of that set's pairs for that long, 10 at once as the Roost rows' 10 connections ask, from
// images in memory, with the settings Roost uses for a JPEG
// (packages/server/src/filestore/thumbnails/thumbnail-maker.ts).
import sharp from 'sharp';
import { benchImages, IMAGE_SETS, pairAt, type ImageSet } from './thumbnail-fixture.js';

const images = new Map(await Promise.all(IMAGE_SETS.map(async (set) => [set.name, await benchImages(set)] as const)));

async function loop(set: ImageSet, until: number): Promise<number> {
  const own = images.get(set.name) ?? [];
  let next = 0;
  let n = 0;
  const worker = async () => {
    while (performance.now() < until) {
      const { image, width, height } = pairAt(set, next++);
      await sharp(own[image] as Buffer, { autoOrient: true })
        .resize({ width, height, fit: 'cover', withoutEnlargement: true })
        .jpeg({ quality: 80, mozjpeg: true })
        .toBuffer();
      n++;
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return n;
}

process.on('message', (message: { loop: string; seconds: number }) => {
  const set = IMAGE_SETS.find((s) => s.name === message.loop);
  if (!set) throw new Error(`unknown loop ${message.loop}`);
  const begin = performance.now();
  void loop(set, begin + message.seconds * 1000).then((requests) => {
    process.send?.({ loop: message.loop, requests, seconds: (performance.now() - begin) / 1000 });
  });
});
process.send?.({ url: '' });
