import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { sweepBlobs } from '../../src/cli/sweep.js';
import { startServer } from '../helpers/test-server.js';

test('sweep-blobs deletes contents no file refers to, older than the given age, and keeps every file', async () => {
  const s = await startServer({ fileStores: { files: {}, other: {} } });
  try {
    const token = await s.createUser('alice');
    await s.request('/files/kept.txt/@write', undefined, { token, method: 'PUT', raw: 'kept' });
    await s.request('/other/kept.txt/@write', undefined, { token, method: 'PUT', raw: 'kept too' });
    // What a crash between upload and commit leaves: a blob no entry names.
    const orphan = await s.roost.blobs.forStore('files').put(Readable.from([Buffer.from('orphan')]), { maxBytes: 100 });
    const young = await sweepBlobs(s.roost.config);
    assert.deepEqual(young, { checked: 3, deleted: 0 }, 'younger than an hour: it may be an upload about to commit');
    const swept = await sweepBlobs(s.roost.config, { minAgeMs: 0, now: Date.now() + 1000 });
    assert.deepEqual(swept, { checked: 3, deleted: 1 });
    await assert.rejects(s.roost.blobs.forStore('files').get(orphan.id));
    assert.equal(await (await fetch(`${s.url}/files/kept.txt`, { headers: { 'x-auth-token': token } })).text(), 'kept');
    assert.equal(
      await (await fetch(`${s.url}/other/kept.txt`, { headers: { 'x-auth-token': token } })).text(),
      'kept too',
    );
  } finally {
    await s.close();
  }
});
