// Roost with a public file store `files` that makes thumbnails of the fixture's sizes
// (bench/thumbnail-fixture.ts), both sets of images uploaded through the API; no thumbnails kept
// in memory, so a cached one is read back from beside its image as a file is. Also one thumbnail
// made and a plain file of the same bytes, for "a cached thumbnail against a file read".
import { benchImages, IMAGE_SETS, imageName, THUMB_SIZES } from './thumbnail-fixture.js';
import { startBenchRoost } from './roost-setup.js';

const { url, token, database } = await startBenchRoost({
  fileStores: {
    files: { read: 'sys:everyone', thumbnails: { sizes: [...THUMB_SIZES, '300x300'], memoryBytes: 0 } },
  },
});
const write = async (name: string, body: Buffer) => {
  const res = await fetch(`${url}/files/${name}/@write`, {
    method: 'PUT',
    body: new Uint8Array(body),
    headers: { 'x-auth-token': token, 'content-type': 'image/jpeg' },
  });
  if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
};
for (const set of IMAGE_SETS) {
  const images = await benchImages(set);
  for (const [i, image] of images.entries()) await write(imageName(set, i), image);
  if (set.name === 'small') await write('cached.jpg', images[0] as Buffer);
}
const thumbnail = await fetch(`${url}/files/cached.jpg?thumb=300x300`);
if (!thumbnail.ok) throw new Error(`thumbnail: ${thumbnail.status}`);
await write('thumbnail-copy.jpg', Buffer.from(await thumbnail.arrayBuffer()));
process.send?.({ url, token, database });
