import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobTooLargeError, type BlobStore } from '../../src/storage/blob-store.js';
import { createLocalBlobStore } from '../../src/storage/local-blob-store.js';
import { createS3BlobStore } from '../../src/storage/s3-blob-store.js';
import { generatedBody } from '../helpers/file-requests.js';
import { sharedS3 } from '../helpers/s3-server.js';

const text = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const ids = async (store: BlobStore) => {
  const out: string[] = [];
  for await (const blob of store.list()) out.push(blob.id);
  return out.sort();
};

/** The same promises from every blob store: the local directory and an S3 bucket (s3rver). */
const backends: Array<
  [name: string, open: () => Promise<{ store: BlobStore & { close(): void }; cleanup(): Promise<void> }>]
> = [
  [
    'local disk',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'roost-blobs-'));
      return { store: createLocalBlobStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'S3 (s3rver)',
    async () => {
      const options = await (await sharedS3()).newBucket();
      return { store: createS3BlobStore(options), cleanup: async () => {} };
    },
  ],
];

for (const [name, open] of backends) {
  describe(`blob store: ${name}`, () => {
    let store: BlobStore & { close(): void };
    let cleanup: () => Promise<void>;
    before(async () => ({ store, cleanup } = await open()));
    after(async () => {
      store.close();
      await cleanup();
    });

    test('put returns size, hash and head; get reads all or a range; delete removes; list lists', async () => {
      const stored = await store.put(Readable.from([Buffer.from('hello '), Buffer.from('world')]), { maxBytes: 100 });
      assert.equal(stored.size, 11);
      assert.equal(stored.hash, createHash('sha256').update('hello world').digest('base64url'));
      assert.equal(stored.head.toString(), 'hello world');
      assert.equal((await text(await store.get(stored.id))).toString(), 'hello world');
      assert.equal((await text(await store.get(stored.id, { start: 6, end: 10 }))).toString(), 'world');
      assert.deepEqual(await ids(store), [stored.id]);
      await store.delete(stored.id);
      await store.delete(stored.id); // gone already: not an error
      await assert.rejects(store.get(stored.id));
      assert.deepEqual(await ids(store), []);
    });

    test('a large upload is streamed in parts and reads back whole', async () => {
      const size = 11 * 1024 * 1024 + 17;
      const stored = await store.put(generatedBody(size), { maxBytes: size });
      const expected = createHash('sha256');
      for await (const chunk of generatedBody(size)) expected.update(chunk as Buffer);
      assert.equal(stored.hash, expected.digest('base64url'));
      const got = createHash('sha256');
      let n = 0;
      for await (const chunk of await store.get(stored.id)) {
        got.update(chunk as Buffer);
        n += (chunk as Buffer).length;
      }
      assert.equal(n, size);
      assert.equal(got.digest('base64url'), stored.hash);
      await store.delete(stored.id);
    });

    test('too large, or a source that fails, leaves nothing behind', async () => {
      await assert.rejects(
        store.put(generatedBody(6 * 1024 * 1024), { maxBytes: 6 * 1024 * 1024 - 1 }),
        BlobTooLargeError,
      );
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1024 * 1024));
          if (this.readableLength > 0) this.destroy(new Error('client went away'));
        },
      });
      await assert.rejects(store.put(failing, { maxBytes: 100 * 1024 * 1024 }), /client went away/);
      assert.deepEqual(await ids(store), []);
    });

    test('ids that this store did not make are refused, never turned into a path or key', async () => {
      for (const id of ['../etc/passwd', 'a/b', '', 'x'.repeat(36)])
        await assert.rejects(async () => store.get(id), /invalid blob id/);
    });
  });
}
