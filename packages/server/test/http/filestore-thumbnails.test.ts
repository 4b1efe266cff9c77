import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { listedObjects, s3Connection } from '../../src/storage/s3-blob-store.js';
import { useServer, type TestServer } from '../helpers/test-server.js';

/**
 * `?thumb=WxH` on a download (docs/filestore.md, "Thumbnails"; src/filestore/thumbnails/): over
 * HTTP, on local blobs and (pass 2) on S3 with PostgreSQL.
 */

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A decompression bomb's header: a valid PNG of a few dozen bytes that declares `side` × `side` pixels. */
function pngDeclaring(side: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grey
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(side + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** `width` × `height`, the top half red and the bottom half blue. */
async function halves(width: number, height: number, format: 'jpeg' | 'png'): Promise<Buffer> {
  const half = Math.floor(height / 2);
  const blue = await sharp({ create: { width, height: height - half, channels: 3, background: '#0000ff' } })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#ff0000' } })
    .composite([{ input: blue, top: half, left: 0 }])
    .toFormat(format)
    .toBuffer();
}

/** The colour of the thumbnail's middle pixel, as the name of its strongest channel. */
async function middleColour(image: Buffer): Promise<'red' | 'blue'> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
  return (data[at] ?? 0) > (data[at + 2] ?? 0) ? 'red' : 'blue';
}

/** Every thumbnail kept beside the images of the server's blob store (local folder or S3 bucket). */
async function keptThumbnails(s: TestServer): Promise<string[]> {
  const blobs = s.roost.config.blobs;
  if (blobs.kind === 's3') {
    const connection = s3Connection(blobs);
    const names: string[] = [];
    for await (const { name } of listedObjects(connection.s3, blobs.bucket, blobs.prefix))
      if (name.includes('.derived/')) names.push(name);
    connection.close();
    return names;
  }
  const dir = blobs.dir ?? join(s.roost.config.dataDir, 'blobs');
  const names: string[] = [];
  for (const folder of await readdir(dir)) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    for (const entry of await readdir(join(dir, folder)))
      if (entry.endsWith('.derived'))
        for (const name of await readdir(join(dir, folder, entry))) names.push(`${entry}/${name}`);
  }
  return names;
}

describe('file store: thumbnails', () => {
  const s = useServer({
    fileStores: {
      files: {
        thumbnails: {
          sizes: [
            '100x100',
            '100x100t',
            '100x100b',
            '100x100f',
            '0x50',
            '80x0',
            '40x40',
            '30x30',
            '4000x4000',
            '4000x4000f',
            '0x4000',
            '3000x3000',
          ],
          maxInputPixels: 20_000_000,
          timeoutSeconds: 1,
        },
      },
      plain: {},
      tiny: { thumbnails: { sizes: ['40x40'], maxInputBytes: 200 } },
    },
  });
  let alice: string;
  let bob: string;
  let tall: Buffer;
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${s.url}${path}`, { method, headers: { 'x-auth-token': alice, ...headers } });
  const put = async (path: string, body: Buffer, type: string, token = alice) => {
    const res = await fetch(`${s.url}${path}/@write`, {
      method: 'PUT',
      body: new Uint8Array(body),
      headers: { 'x-auth-token': token, 'content-type': type },
    });
    assert.equal(res.status, 200, await res.clone().text());
  };
  const thumbsMade = async () => {
    const text = (await s.request('/metrics', undefined, { token: await s.adminToken() })).body as string;
    return Number(/^roost_thumbnails_made_total (\d+)$/m.exec(text)?.[1]);
  };

  before(async () => {
    [alice, bob] = await Promise.all([s.createUser('alice'), s.createUser('bob')]);
    tall = await halves(100, 400, 'jpeg');
    await put('/files/tall.jpg', tall, 'image/jpeg');
    await put('/files/wide.png', await halves(400, 200, 'png'), 'image/png');
    await put('/files/notes.txt', Buffer.from('not an image'), 'text/plain');
    await put('/files/fake.png', Buffer.from('this is no PNG at all'), 'image/png');
    // An SVG document named a PNG or a TIFF: sharp would render it (librsvg), which thumb-format.ts leaves out.
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><rect width="400" height="400"/></svg>';
    await put('/files/drawing.png', Buffer.from(svg), 'image/png');
    await put('/files/drawing.tiff', Buffer.from(`<?xml version="1.0"?>${svg}`), 'image/tiff');
    await put('/files/bomb.png', pngDeclaring(100_000), 'image/png');
    await put('/plain/tall.jpg', tall, 'image/jpeg');
    await put('/tiny/tall.jpg', tall, 'image/jpeg');
  });

  test('each fit mode of the syntax, in the image kind for a client that names none', async () => {
    const cases: [string, number, number, 'red' | 'blue' | null][] = [
      ['100x100', 100, 100, null],
      ['100x100t', 100, 100, 'red'],
      ['100x100b', 100, 100, 'blue'],
      ['100x100f', 25, 100, null],
      ['0x50', 13, 50, null],
      ['80x0', 80, 320, null],
    ];
    for (const [thumb, width, height, colour] of cases) {
      const res = await get(`/files/tall.jpg?thumb=${thumb}`);
      assert.equal(res.status, 200, thumb);
      assert.equal(res.headers.get('content-type'), 'image/jpeg', thumb);
      assert.equal(res.headers.get('vary'), 'Accept');
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(res.headers.get('content-length'), String(bytes.length));
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', width, height], thumb);
      if (colour) assert.equal(await middleColour(bytes), colour, thumb);
    }
    // Never enlarged: a crop larger than the image is the largest of its ratio that the image holds.
    for (const [thumb, width, height] of [
      ['4000x4000', 100, 100],
      ['4000x4000f', 100, 400],
      ['0x4000', 100, 400],
    ] as const) {
      const big = Buffer.from(await (await get(`/files/tall.jpg?thumb=${thumb}`)).arrayBuffer());
      const meta = await sharp(big).metadata();
      assert.deepEqual([meta.width, meta.height], [width, height], thumb);
    }
    // Under /api/ and through @read too; a PNG's thumbnail is a PNG.
    assert.equal((await get('/files/api/tall.jpg?thumb=40x40')).status, 200);
    assert.equal((await get('/files/tall.jpg/@read?thumb=40x40')).status, 200);
    const png = await get('/files/wide.png?thumb=40x40');
    assert.equal(png.headers.get('content-type'), 'image/png');
  });

  test('the format follows Accept: AVIF, then WebP, else the image kind', async () => {
    const cases: [string, string][] = [
      ['image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8', 'avif'],
      ['image/webp,*/*', 'webp'],
      ['image/avif;q=0.5,image/webp', 'webp'],
      ['image/*', 'jpeg'],
      ['text/html', 'jpeg'],
    ];
    for (const [accept, format] of cases) {
      const res = await get('/files/tall.jpg?thumb=100x100', { accept });
      assert.equal(res.status, 200, accept);
      assert.equal(res.headers.get('content-type'), `image/${format}`, accept);
      assert.equal(res.headers.get('vary'), 'Accept');
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      assert.equal(meta.format === 'heif' ? 'avif' : meta.format, format, accept);
    }
    // AVIF only where the box bounds the encoder's work (src/filestore/thumbnails/thumb-format.ts).
    const large = await get('/files/tall.jpg?thumb=4000x4000', { accept: 'image/avif,image/webp,*/*' });
    assert.equal(large.headers.get('content-type'), 'image/webp');
  });

  test('ETag, conditional requests, ranges and HEAD behave as for a file', async () => {
    const first = await get('/files/tall.jpg?thumb=100x100t', { accept: 'image/webp' });
    const bytes = Buffer.from(await first.arrayBuffer());
    const etag = first.headers.get('etag') ?? '';
    assert.match(etag, /^"[A-Za-z0-9_-]{43}\.100x100t\.webp"$/);
    assert.equal(first.headers.get('accept-ranges'), 'bytes');
    const again = await get('/files/tall.jpg?thumb=100x100t', { accept: 'image/webp', 'if-none-match': etag });
    assert.deepEqual([again.status, await again.text()], [304, '']);
    // Another format is another ETag.
    const jpeg = await get('/files/tall.jpg?thumb=100x100t', { 'if-none-match': etag });
    assert.equal(jpeg.status, 200);
    assert.notEqual(jpeg.headers.get('etag'), etag);
    const range = await get('/files/tall.jpg?thumb=100x100t', { accept: 'image/webp', range: 'bytes=0-9' });
    assert.equal(range.status, 206);
    assert.equal(range.headers.get('content-range'), `bytes 0-9/${bytes.length}`);
    assert.deepEqual(Buffer.from(await range.arrayBuffer()), bytes.subarray(0, 10));
    const past = await get('/files/tall.jpg?thumb=100x100t', { accept: 'image/webp', range: `bytes=${bytes.length}-` });
    assert.equal(past.status, 416);
    const head = await get('/files/tall.jpg?thumb=100x100t', { accept: 'image/webp' }, 'HEAD');
    assert.deepEqual(
      [head.status, head.headers.get('content-length'), head.headers.get('etag'), await head.text()],
      [200, String(bytes.length), etag, ''],
    );
  });

  test('refusals: a size not listed, no sizes, files that are not images, a bomb, a heavy file', async () => {
    const refused = async (path: string, status: number, code: string) => {
      const res = await get(path);
      const body = await res.json();
      assert.deepEqual([res.status, body.code, body.result], [status, code, false], path);
      assert.equal(typeof body.message, 'string');
      return body;
    };
    const body = await refused('/files/tall.jpg?thumb=101x101', 422, 'thumb_not_allowed');
    assert.deepEqual(body.invalid, [['thumb', 'not_allowed']]);
    assert.match(body.message, /100x100, 100x100t/);
    await refused('/files/tall.jpg?thumb=', 422, 'thumb_not_allowed');
    await refused('/files/tall.jpg?thumb=100x100&thumb=40x40', 422, 'thumb_not_allowed');
    await refused('/plain/tall.jpg?thumb=100x100', 422, 'thumb_not_allowed');
    await refused('/files/notes.txt?thumb=100x100', 422, 'not_an_image');
    await refused('/files/fake.png?thumb=100x100', 422, 'not_an_image');
    await refused('/files/drawing.png?thumb=100x100', 422, 'not_an_image');
    await refused('/files/drawing.tiff?thumb=100x100', 422, 'not_an_image');
    const made = await thumbsMade();
    const bomb = await refused('/files/bomb.png?thumb=100x100', 413, 'image_too_large');
    assert.match(bomb.message, /pixels/);
    assert.equal(await thumbsMade(), made);
    const heavy = await refused('/tiny/tall.jpg?thumb=40x40', 413, 'image_too_large');
    assert.match(heavy.message, /200 bytes/);
    await refused('/files/missing.jpg?thumb=100x100', 404, 'not_found');
    // The files themselves are untouched, and still served whole.
    assert.deepEqual(Buffer.from(await (await get('/files/tall.jpg')).arrayBuffer()), tall);
    assert.equal(await (await get('/files/notes.txt')).text(), 'not an image');
  });

  test('a thumbnail has the permission of reading its file', async () => {
    const anonymous = await fetch(`${s.url}/files/tall.jpg?thumb=100x100`);
    assert.equal(anonymous.status, 401);
    assert.equal(
      (await fetch(`${s.url}/files/tall.jpg?thumb=100x100`, { headers: { 'x-auth-token': bob } })).status,
      200,
    );
    const admin = await s.adminToken();
    const set = async (groups: string[]) => {
      const res = await s.request(
        '/files/@setPermissions',
        { permissions: [{ permission: 'read', groups, action: 'replace' }] },
        { token: admin },
      );
      assert.equal(res.status, 200);
    };
    await set(['sys:owner']);
    try {
      const other = await fetch(`${s.url}/files/tall.jpg?thumb=100x100`, { headers: { 'x-auth-token': bob } });
      assert.deepEqual([other.status, (await other.json()).code], [404, 'not_found']);
      assert.equal((await get('/files/tall.jpg?thumb=100x100')).status, 200);
    } finally {
      await set(['sys:authenticated', 'admins']);
    }
  });

  test('20 requests at once for a new thumbnail make it once', async () => {
    await put('/files/once.png', await halves(300, 200, 'png'), 'image/png');
    const before = await thumbsMade();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => get('/files/once.png?thumb=30x30', { accept: 'image/webp' })),
    );
    const bodies = await Promise.all(answers.map(async (r) => Buffer.from(await r.arrayBuffer()).toString('base64')));
    assert.deepEqual(
      answers.map((r) => r.status),
      Array(20).fill(200),
    );
    assert.equal(new Set(bodies).size, 1);
    assert.equal((await thumbsMade()) - before, 1);
    // Asked again, it is read back, not made again.
    assert.equal((await get('/files/once.png?thumb=30x30', { accept: 'image/webp' })).status, 200);
    assert.equal((await thumbsMade()) - before, 1);
  });

  test('thumbnails are kept beside their image and go with it on overwrite and removal', async () => {
    const kept = async () =>
      (await keptThumbnails(s)).filter((n) => n.endsWith('40x40.webp') || n.endsWith('40x40.png'));
    await put('/files/gone.png', await halves(200, 200, 'png'), 'image/png');
    const baseline = (await kept()).length;
    assert.equal((await get('/files/gone.png?thumb=40x40', { accept: 'image/webp' })).status, 200);
    assert.equal((await get('/files/gone.png?thumb=40x40')).status, 200);
    assert.equal((await kept()).length, baseline + 2);
    const red = Buffer.from(await (await get('/files/gone.png?thumb=40x40')).arrayBuffer());

    // New contents: the old thumbnails are gone, and the new image has new ones.
    await put(
      '/files/gone.png',
      await halves(200, 200, 'png').then((b) => sharp(b).flip().png().toBuffer()),
      'image/png',
    );
    assert.equal((await kept()).length, baseline);
    const flipped = Buffer.from(await (await get('/files/gone.png?thumb=40x40')).arrayBuffer());
    assert.notDeepEqual(flipped, red);
    assert.equal(
      await middleColour(await sharp(flipped).extract({ left: 0, top: 0, width: 40, height: 10 }).png().toBuffer()),
      'blue',
    );
    assert.equal((await kept()).length, baseline + 1);

    const removed = await s.request('/files/gone.png/@removeItem', {}, { token: alice });
    assert.equal(removed.status, 200);
    assert.equal((await kept()).length, baseline);
  });

  test('an image too slow to make is stopped at the time limit', async () => {
    // Noise compresses badly: a 3000×3000 WebP of it takes libvips about 5 s to write (1 s allowed).
    const noise = await sharp(randomBytes(3000 * 3000 * 3), { raw: { width: 3000, height: 3000, channels: 3 } })
      .jpeg({ quality: 70 })
      .toBuffer();
    await put('/files/noise.jpg', noise, 'image/jpeg');
    const started = Date.now();
    const res = await get('/files/noise.jpg?thumb=3000x3000', { accept: 'image/webp' });
    const body = await res.json();
    assert.deepEqual([res.status, body.code], [503, 'image_too_slow']);
    assert.ok(Date.now() - started < 8000, `answered after ${Date.now() - started} ms`);
    assert.equal(await (await get('/files/tall.jpg?thumb=100x100')).status, 200);
  });
});
