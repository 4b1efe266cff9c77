import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { tusCalls, tusMetadata } from '../helpers/file-requests.js';
import { resumableUploadsBucket } from '../helpers/moto-server.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/**
 * A resumable upload into a collection's file field (docs/collections.md, "Relations and files";
 * docs/filestore.md, "Resumable uploads (tus)"): the file goes by tus into the field's file store,
 * then the record is written with its path. Until its last byte the file does not exist, so a
 * record naming it is refused; after a cut the upload goes on from the offset HEAD tells; the
 * record then reads back with the path, the file byte for byte. On local blobs (SQLite pass) and
 * on S3 (moto: s3rver lists no multipart parts) in the PostgreSQL pass.
 */
const SIZE = 300 * 1024;
const bytes = Buffer.from(Uint8Array.from({ length: SIZE }, (_, i) => (i * 31 + 7) % 251));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
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
const { create, patch, head } = tusCalls(() => s.url);

before(async () => {
  const blobs = await resumableUploadsBucket();
  skipReason = blobs.skipReason;
  s = await startServer({
    ...(blobs.bucket ? { blobs: blobs.bucket } : {}),
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
  const record = (image: string) => s.request('/api/collections/photos/records', { title: 'Cat', image }, { token });
  await s.request('/media/@newItem', { name: 'photos', type: 'd' }, { token });

  // Creation: the path in the field's store, from its root (what the record will hold).
  const path = 'photos/cat.bin';
  const created = await create(token, 'media', {
    'upload-length': String(SIZE),
    'upload-metadata': tusMetadata({ path, filetype: 'image/x-cat' }),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));

  // A first part, then a cut: the record cannot name the file yet.
  const first = await patch(token, created.location, 0, bytes.subarray(0, 100 * 1024));
  assert.equal(first.status, 204);
  const early = await record(path);
  assert.equal(early.status, 422, JSON.stringify(early.body));
  assert.deepEqual(early.body.invalid, [['image', 'no file "photos/cat.bin" in the file store media']]);

  // HEAD tells where it stands; the rest from there completes the file.
  const { offset } = await head(token, created.location);
  assert.equal(offset, 100 * 1024);
  assert.equal((await patch(token, created.location, offset, bytes.subarray(offset))).status, 204);

  const made = await record(path);
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const read = await s.request(`/api/collections/photos/records/${made.body.id}`, undefined, { token, method: 'GET' });
  assert.equal(read.body.image, path);
  const file = await fetch(`${s.url}/media/${read.body.image}`, { headers: { 'x-auth-token': token } });
  assert.equal(file.headers.get('content-type'), 'image/x-cat');
  assert.equal(sha256(Buffer.from(await file.arrayBuffer())), sha256(bytes));
});
