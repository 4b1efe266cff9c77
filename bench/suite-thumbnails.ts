// Thumbnails (issue 41, item 3): Roost making new thumbnails over HTTP against sharp alone on
// the same images and sizes (the goal: at least 80%), for small images and for 12 MP photos;
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

/** sharp alone and Roost, each making new thumbnails of one set's pairs. */
async function newThumbnails(set: ImageSet, roost: Server<{ url: string }>, alone: Server): Promise<Measured[]> {
  let next = 0;
  const measured = await compare([
    loopTarget(`sharp alone: new thumbnails of ${set.width} × ${set.height} JPEGs`, alone, set.name),
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
    const [smallAlone, smallRoost] = await newThumbnails(small, roost, alone);
    const [photoAlone, photoRoost] = await newThumbnails(photo, roost, alone);
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
      sharpAlone: smallAlone!,
      made: smallRoost!,
      photoSharpAlone: photoAlone!,
      photoMade: photoRoost!,
      fileRead: fileRead!,
      cachedRead: cachedRead!,
    };
    publish('thumbnails', machine, slicesLine(CONNECTIONS), rows, [
      renderTable([
        { label: rows.sharpAlone.name, m: rows.sharpAlone },
        { label: rows.made.name, m: rows.made, baseline: rows.sharpAlone },
        { label: rows.photoSharpAlone.name, m: rows.photoSharpAlone },
        { label: rows.photoMade.name, m: rows.photoMade, baseline: rows.photoSharpAlone },
        { label: rows.fileRead.name, m: rows.fileRead },
        { label: rows.cachedRead.name, m: rows.cachedRead, baseline: rows.fileRead },
      ]),
    ]);
  } finally {
    await stop(roost, alone);
  }
}
