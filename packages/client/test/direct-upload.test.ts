import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { filestore, type FileStore, type RoostError } from '../src/index.js';
import { sharedS3 } from '../../server/test/helpers/s3-server.js';
import { startServer, type TestServer } from '../../server/test/helpers/test-server.js';

/**
 * The connector's direct uploads and links (docs/filestore.md, "Direct uploads and downloads
 * (S3)") against a Roost whose store `photos` keeps its blobs on the suite's S3 server; the
 * server's own checks are in packages/server/test/http/filestore-direct.test.ts.
 */
describe('filestore connector: direct uploads and links with S3 (Node)', () => {
  let s: TestServer;
  let photos: FileStore;
  let files: FileStore;

  before(async () => {
    const blobs = await (await sharedS3()).newBucket();
    s = await startServer({
      fileStores: { files: {}, photos: { blobs, maxFileBytes: 1024, direct: { downloads: true } } },
    });
    const token = await s.createUser('alice');
    photos = filestore('photos', { baseUrl: s.url, token });
    files = filestore('files', { baseUrl: s.url, token });
  });
  after(() => s.close());

  test('a Blob goes to the bucket and becomes the file; its link reads it back', async () => {
    const bytes = new TextEncoder().encode('straight to the bucket');
    const entry = await photos.directUpload('note.txt', new Blob([bytes], { type: 'text/plain' }));
    assert.deepEqual(
      [entry.result, entry.name, entry.size, entry.mime],
      [true, 'note.txt', bytes.length, 'text/plain'],
    );
    const { url, expires } = await photos.link('note.txt');
    assert.ok(Date.parse(expires) > Date.now());
    assert.equal(await (await fetch(url)).text(), 'straight to the bucket');
  });

  test('refusals reject with the server code: past the limit, a store without direct transfers', async () => {
    await assert.rejects(
      photos.directUpload('big.bin', new Blob([new Uint8Array(1025)])),
      (e: RoostError) => e.status === 413 && e.code === 'storage_limit' && e.operation === 'directUpload',
    );
    await assert.rejects(
      files.directUpload('a.txt', new Blob(['x'])),
      (e: RoostError) => e.status === 404 && e.code === 'direct_not_enabled',
    );
    await assert.rejects(photos.link('missing.txt'), (e: RoostError) => e.code === 'not_found');
  });
});
