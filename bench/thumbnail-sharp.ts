// sharp alone, the baselines of Roost's thumbnails (bench/suite-thumbnails.ts), with the settings
// Roost uses for a JPEG (packages/server/src/filestore/thumbnails/thumbnail-maker.ts), images in
// memory:
// - behind a bare Fastify route, `GET /<set>/<image>?thumb=WxH`, loaded by autocannon as Roost is
//   (the client's share of the machine alike), each image read from a file as Roost reads its blob;
// - in a loop, on the IPC message `{loop, seconds}` (the loop is a set's name): that set's pairs
//   for that long, 10 at once as the Roost rows' 10 connections ask: the ceiling, with no HTTP.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify from 'fastify';
import sharp from 'sharp';
import { tempDir } from './server-lifecycle.js';
import { benchImages, IMAGE_SETS, imageName, pairAt, type ImageSet } from './thumbnail-fixture.js';

const images = new Map(await Promise.all(IMAGE_SETS.map(async (set) => [set.name, await benchImages(set)] as const)));
const dir = tempDir('roost-bench-sharp-');
for (const set of IMAGE_SETS)
  for (const [i, image] of (images.get(set.name) ?? []).entries()) await writeFile(join(dir, imageName(set, i)), image);

const thumbnail = (image: Buffer, width: number, height: number) =>
  sharp(image, { autoOrient: true })
    .resize({ width, height, fit: 'cover', withoutEnlargement: true })
    .jpeg({ quality: 80, mozjpeg: true })
    .toBuffer();

async function loop(set: ImageSet, until: number): Promise<number> {
  const own = images.get(set.name) ?? [];
  let next = 0;
  let n = 0;
  const worker = async () => {
    while (performance.now() < until) {
      const { image, width, height } = pairAt(set, next++);
      await thumbnail(own[image] as Buffer, width, height);
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
const app = Fastify({ logger: false });
app.get<{ Params: { set: string; image: string }; Querystring: { thumb: string } }>(
  '/:set/:image',
  async (request, reply) => {
    const set = IMAGE_SETS.find((s) => s.name === request.params.set);
    if (!set) return reply.code(404).send();
    const image = await readFile(join(dir, imageName(set, Number(request.params.image))));
    const [width, height] = request.query.thumb.split('x').map(Number) as [number, number];
    return reply.type('image/jpeg').send(await thumbnail(image, width, height));
  },
);
process.send?.({ url: await app.listen({ port: 0, host: '127.0.0.1' }) });
