import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sharedMoto, type TestMoto } from '../helpers/moto-server.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/**
 * A resumable upload into a collection's file field (docs/collections.md, "Relations and files";
 * docs/filestore.md, "Resumable uploads (tus)"): the file goes by tus into the field's file store,
 * then the record is written with its path. Until its last byte the file does not exist, so a
 * record naming it is refused; after a cut the upload goes on from the offset HEAD tells; the
 * record then reads back with the path, the file byte for byte. On local blobs (SQLite pass) and
 * on S3 (moto: s3rver lists no multipart parts) in the PostgreSQL pass.
 */
const S3 = process.env.ROOST_TEST_BLOBS === 's3';
const TUS = { 'tus-resumable': '1.0.0' };
const SIZE = 300 * 1024;
const bytes = Buffer.from(Uint8Array.from({ length: SIZE }, (_, i) => (i * 31 + 7) % 251));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const base64 = (text: string) => Buffer.from(text).toString('base64');
const photos = {
  schema: {
    type: 'object',
    properties: { title: { type: 'string' }, image: { type: 'string', 'x-file': 'media' } },
    required: ['title', 'image'],
  },
  rules: { list: '', view: '', create: '', update: '' },
};

let s: TestServer;
let skipReason: string | undefined;
let bucket: Awaited<ReturnType<TestMoto['newBucket']>> | undefined;

before(async () => {
  if (S3) {
    const moto = await sharedMoto();
    if (!moto) skipReason = 'moto_server is not installed: resumable uploads to S3 are not tested here';
    else bucket = await moto.newBucket();
  }
  s = await startServer({
    ...(bucket ? { blobs: bucket } : {}),
    fileStores: { media: {} },
    collections: { photos },
  });
});
after(async () => {
  await s?.close();
});

test("tus into the file field's store, then the record with the path", async (t) => {
  if (skipReason) return t.skip(skipReason);
  const token = await s.createUser('writer');
  const auth = { 'x-auth-token': token };
  const record = (image: string) => s.request('/api/collections/photos/records', { title: 'Cat', image }, { token });
  await s.request('/media/@newItem', { name: 'photos', type: 'd' }, { token });

  // Creation: the path in the field's store, from its root (what the record will hold).
  const path = 'photos/cat.bin';
  const created = await fetch(`${s.url}/media/@uploads`, {
    method: 'POST',
    headers: {
      ...TUS,
      ...auth,
      'upload-length': String(SIZE),
      'upload-metadata': `path ${base64(path)},filetype ${base64('image/x-cat')}`,
    },
  });
  assert.equal(created.status, 201, await created.text());
  const upload = s.url + (created.headers.get('location') ?? '');
  const patch = (offset: number, body: Buffer) =>
    fetch(upload, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
      body: new Uint8Array(body),
    });

  // A first part, then a cut: the record cannot name the file yet.
  const first = await patch(0, bytes.subarray(0, 100 * 1024));
  assert.equal(first.status, 204);
  const early = await record(path);
  assert.equal(early.status, 422, JSON.stringify(early.body));
  assert.deepEqual(early.body.invalid, [['image', 'no file "photos/cat.bin" in the file store media']]);

  // HEAD tells where it stands; the rest from there completes the file.
  const stands = await fetch(upload, { method: 'HEAD', headers: { ...TUS, ...auth } });
  const offset = Number(stands.headers.get('upload-offset'));
  assert.equal(offset, 100 * 1024);
  assert.equal((await patch(offset, bytes.subarray(offset))).status, 204);

  const made = await record(path);
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const read = await s.request(`/api/collections/photos/records/${made.body.id}`, undefined, { token, method: 'GET' });
  assert.equal(read.body.image, path);
  const file = await fetch(`${s.url}/media/${read.body.image}`, { headers: auth });
  assert.equal(file.headers.get('content-type'), 'image/x-cat');
  assert.equal(sha256(Buffer.from(await file.arrayBuffer())), sha256(bytes));
});
