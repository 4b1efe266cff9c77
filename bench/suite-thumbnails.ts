// Thumbnails (issue 41, item 3): Roost making new thumbnails over HTTP against sharp alone on
// the same images and sizes (the goal: at least 80%; sharp behind a bare route, loaded as Roost
// is, and sharp in a loop without HTTP), for small images and for 12 MP photos;
// and a thumbnail made before (read back from beside its image) against a plain download of a
// file of the same bytes.
import {
  compare,
  httpTarget,
  loopTarget,
  machineLine,
  type Measured,
  publish,
  renderTable,
  type Server,
  slicesLine,
  start,
  stop,
} from './lib.js';
import { IMAGE_SETS, imageName, type ImageSet, pairAt, pairsOf } from './thumbnail-fixture.js';

const CONNECTIONS = 10;

/** sharp alone (in a loop, and behind a bare route) and Roost, each making new thumbnails of one set's pairs. */
async function newThumbnails(set: ImageSet, roost: Server<{ url: string }>, alone: Server): Promise<Measured[]> {
  let next = 0;
  let bareNext = 0;
  const measured = await compare([
    loopTarget(`sharp alone in a loop: new thumbnails of ${set.width} × ${set.height} JPEGs`, alone, set.name),
    httpTarget(`sharp alone behind a bare Fastify route: ${set.width} × ${set.height} JPEGs`, alone, {
      url: alone.info.url,
      connections: CONNECTIONS,
      requests: [
        {
          method: 'GET',
          setupRequest: (request) => {
            const { image, size } = pairAt(set, bareNext++);
            return { ...request, path: `/${set.name}/${image}?thumb=${size}` };
          },
        },
      ],
    }),
    httpTarget(`Roost: new thumbnails of ${set.width} × ${set.height} JPEGs (GET ?thumb=WxH)`, roost, {
      url: roost.info.url,
      connections: CONNECTIONS,
      requests: [
        {
          method: 'GET',
          setupRequest: (request) => {
            const { image, size } = pairAt(set, next++);
            return { ...request, path: `/files/${imageName(set, image)}?thumb=${size}` };
          },
        },
      ],
    }),
  ]);
  if (next > pairsOf(set)) console.error(`${set.name}: ${next} requests, more than ${pairsOf(set)} pairs`);
  return measured;
}

export async function run(): Promise<void> {
  const machine = machineLine(
    'SQLite, local blobs; JPEG thumbnails (no Accept) of JPEG images, crops of about 230 × 180.',
  );
  const roost = await start<{ url: string; token: string }>('thumbnail-server.ts');
  const alone = await start('thumbnail-sharp.ts');
  try {
    const [small, photo] = IMAGE_SETS as [ImageSet, ImageSet];
    const [smallLoop, smallAlone, smallRoost] = await newThumbnails(small, roost, alone);
    const [photoLoop, photoAlone, photoRoost] = await newThumbnails(photo, roost, alone);
    const { url } = roost.info;
    const [fileRead, cachedRead] = await compare([
      httpTarget('file read of the thumbnail’s bytes (GET)', roost, {
        url: `${url}/files/thumbnail-copy.jpg`,
        connections: CONNECTIONS,
      }),
      httpTarget('cached thumbnail (GET ?thumb=300x300, kept beside its image)', roost, {
        url: `${url}/files/cached.jpg?thumb=300x300`,
        connections: CONNECTIONS,
      }),
    ]);
    const rows = {
      sharpLoop: smallLoop!,
      photoSharpLoop: photoLoop!,
      sharpAlone: smallAlone!,
      made: smallRoost!,
      photoSharpAlone: photoAlone!,
      photoMade: photoRoost!,
      fileRead: fileRead!,
      cachedRead: cachedRead!,
    };
    publish('thumbnails', machine, slicesLine(CONNECTIONS), rows, [
      renderTable([
        { label: rows.sharpLoop.name, m: rows.sharpLoop },
        { label: rows.sharpAlone.name, m: rows.sharpAlone },
        { label: rows.made.name, m: rows.made, baseline: rows.sharpAlone },
        { label: `${rows.made.name}, against the loop`, m: rows.made, baseline: rows.sharpLoop },
        { label: rows.photoSharpLoop.name, m: rows.photoSharpLoop },
        { label: rows.photoSharpAlone.name, m: rows.photoSharpAlone },
        { label: rows.photoMade.name, m: rows.photoMade, baseline: rows.photoSharpAlone },
        { label: `${rows.photoMade.name}, against the loop`, m: rows.photoMade, baseline: rows.photoSharpLoop },
        { label: rows.fileRead.name, m: rows.fileRead },
        { label: rows.cachedRead.name, m: rows.cachedRead, baseline: rows.fileRead },
      ]),
    ]);
  } finally {
    await stop(roost, alone);
  }
}
