import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { filestore, type FileStore, type Progress, type RoostError } from '../src/index.js';
import { Coverage, documentedOperations, MAX_FILE_BYTES, startRoost, type TestServer } from './helpers/roost.js';

/** Every operation of a file store through the TypeScript connector in Node, uploads and downloads included. */

const sha256 = (bytes: Uint8Array | ArrayBuffer) => createHash('sha256').update(new Uint8Array(bytes)).digest('hex');

describe('filestore connector (Node)', () => {
  let s: TestServer;
  let alice: FileStore;
  let bob: FileStore;
  let admin: FileStore;
  const coverage = new Coverage();
  const connect = (token?: string) =>
    filestore('files', { baseUrl: s.url, onSuccess: coverage.onSuccess, ...(token ? { token } : {}) });

  before(async () => {
    s = await startRoost();
    alice = connect(await s.createUser('alice'));
    bob = connect(await s.createUser('bob'));
    admin = connect(await s.adminToken());
  });
  after(() => s.close());

  test('newItem: directories and small files (text, or bytes sent base64); getItem', async () => {
    assert.deepEqual(await alice.newItem('', 'docs', { type: 'd' }), { result: 1, success: ['docs'] });
    assert.deepEqual(await alice.newItem('docs', 'a.txt', { contents: 'hello world', cache: 'max-age=60' }), {
      result: 1,
      success: ['a.txt'],
    });
    await alice.newItem('docs', 'bytes.bin', {
      contents: new Uint8Array([0, 1, 2, 255]),
      mime: 'application/octet-stream',
    });
    const entry = await bob.getItem('docs/a.txt');
    assert.deepEqual(
      { ...entry, mtime: 'T', ctime: 'T' },
      {
        result: true,
        name: 'a.txt',
        type: 'f',
        size: 11,
        mime: 'text/plain',
        cache: 'max-age=60',
        header: 'max-age=60',
        mtime: 'T',
        ctime: 'T',
      },
    );
    assert.match(entry.mtime, /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d$/);
    assert.deepEqual(new Uint8Array(await bob.read('docs/bytes.bin')), new Uint8Array([0, 1, 2, 255]));
    const root = await bob.getItem('');
    assert.deepEqual([root.name, root.type], ['', 'd']);
  });

  test('read: as an ArrayBuffer, text, a Blob, a stream, a byte range; with download progress', async () => {
    assert.equal(new TextDecoder().decode(await bob.read('docs/a.txt')), 'hello world');
    assert.equal(await bob.read('docs/a.txt', { as: 'text' }), 'hello world');
    const blob = await bob.read('docs/a.txt', { as: 'blob' });
    assert.match(blob.type, /^text\/plain; ?charset=utf-8$/);
    assert.equal(await blob.text(), 'hello world');
    const stream = await bob.read('docs/a.txt', { as: 'stream' });
    assert.equal(await new Response(stream).text(), 'hello world');
    assert.equal(await bob.read('docs/a.txt', { as: 'text', start: 6 }), 'world');
    assert.equal(await bob.read('docs/a.txt', { as: 'text', start: 0, end: 4 }), 'hello');
    const seen: Progress[] = [];
    await bob.read('docs/a.txt', { onProgress: (p) => seen.push(p) });
    assert.deepEqual(seen.at(-1), { loaded: 11, total: 11 });
    // url() is the download link: a plain GET with the token reads the file.
    const res = await fetch(bob.url('docs/a.txt'), { headers: { 'x-auth-token': bob.options.token as string } });
    assert.equal(await res.text(), 'hello world');
  });

  test("write: text, bytes, a Blob, a stream; upload takes the Blob's type", async () => {
    assert.deepEqual(await alice.write('docs/w.txt', 'written'), { result: true });
    assert.equal((await alice.getItem('docs/w.txt')).mime, 'text/plain');
    const bytes = randomBytes(100_000);
    await alice.write('docs/w.bin', bytes);
    assert.equal(sha256(await alice.read('docs/w.bin')), sha256(bytes));
    await alice.write('docs/w.bin', new Blob([bytes.subarray(0, 10)]), { mime: 'application/x-test' });
    assert.deepEqual(
      [(await alice.getItem('docs/w.bin')).size, (await alice.getItem('docs/w.bin')).mime],
      [10, 'application/x-test'],
    );
    const stream = new Blob(['streamed ', 'contents']).stream();
    await alice.write('docs/stream.txt', stream, { mime: 'text/plain' });
    assert.equal(await alice.read('docs/stream.txt', { as: 'text' }), 'streamed contents');
    await alice.upload('docs/page.html', new Blob(['<p>hi</p>'], { type: 'text/html' }));
    assert.equal((await alice.getItem('docs/page.html')).mime, 'text/html');
  });

  test('write with progress in Node: the body is streamed in pieces and each one is reported', async () => {
    const bytes = randomBytes(200_000);
    const seen: Progress[] = [];
    assert.deepEqual(await alice.write('docs/big.bin', bytes, { onProgress: (p) => seen.push(p) }), { result: true });
    assert.ok(seen.length >= 4, `${seen.length} progress events`);
    assert.deepEqual(seen.at(-1), { loaded: 200_000, total: 200_000 });
    assert.ok(seen.every((p, i) => i === 0 || p.loaded > (seen[i - 1] as Progress).loaded));
    assert.equal(sha256(await alice.read('docs/big.bin')), sha256(bytes));
  });

  test('setItem (meta information and contents), move, list with paging and sorting', async () => {
    assert.deepEqual(await alice.setItem('docs/a.txt', { mime: 'text/markdown', cache: 'public, max-age=3600' }), {
      result: 1,
    });
    assert.deepEqual(
      [(await alice.getItem('docs/a.txt')).mime, (await alice.getItem('docs/a.txt')).cache],
      ['text/markdown', 'public, max-age=3600'],
    );
    await alice.setItem('docs/w.txt', { contents: 'changed' });
    assert.equal(await alice.read('docs/w.txt', { as: 'text' }), 'changed');

    await alice.newItem('', 'archive', { type: 'd' });
    assert.deepEqual(await alice.move('docs/w.txt', '/archive/moved.txt'), { result: true });
    assert.equal(await alice.read('archive/moved.txt', { as: 'text' }), 'changed');

    const listing = await bob.list('docs');
    assert.equal(listing.result, true);
    assert.deepEqual(
      listing.items.map((e) => e.name),
      ['a.txt', 'big.bin', 'bytes.bin', 'page.html', 'stream.txt', 'w.bin'],
    );
    const page = await bob.list('docs', { sort: 'size', order: '>', start: 1, size: 2 });
    assert.deepEqual(
      [page.items.map((e) => e.name), page.start, page.size, page.total],
      [['big.bin', 'stream.txt'], 1, 2, 6],
    );
    assert.deepEqual(
      (await bob.list('', { type: 'd' })).items.map((e) => e.name),
      ['archive', 'docs'],
    );
  });

  test('owners and permissions: getOwner, setOwner, allowed (under a path), get/setPermissions, ping', async () => {
    assert.deepEqual(await bob.getOwner('docs/a.txt'), { result: true, owner: 'alice' });
    assert.deepEqual(await bob.allowed(['read', 'write'], 'docs/a.txt'), { result: false, read: true, write: false });
    assert.deepEqual(await admin.setOwner('docs/a.txt', 'bob'), { result: true });
    assert.deepEqual(await bob.allowed(['read', 'write'], 'docs/a.txt'), { result: true, read: true, write: true });
    assert.deepEqual(await connect().allowed('read'), { result: false, read: false });
    const entries = await admin.getPermissions();
    assert.deepEqual(entries.permissions.find((p) => p.permission === 'read')?.groups, ['sys:authenticated', 'admins']);
    const changed = await admin.setPermissions({ permission: 'read', groups: 'sys:everyone' });
    assert.deepEqual(changed.permissions.find((p) => p.permission === 'read')?.groups, [
      'sys:authenticated',
      'admins',
      'sys:everyone',
    ]);
    assert.equal(await connect().read('docs/a.txt', { as: 'text' }), 'hello world');
    assert.deepEqual(await connect().ping(), { result: 1 });
  });

  test('removeItem: a non-empty directory needs recursive', async () => {
    await assert.rejects(
      alice.removeItem('archive', {}),
      (e: RoostError) => e.status === 422 && e.code === 'not_empty',
    );
    assert.deepEqual(await alice.removeItem('archive', { recursive: true }), { result: 2 });
    await assert.rejects(alice.getItem('archive'), (e: RoostError) => e.status === 404 && e.code === 'not_found');
  });

  test('failures: too large (413, with or without progress), missing, hostile paths, not yours', async () => {
    const tooBig = new Uint8Array(MAX_FILE_BYTES + 1);
    await assert.rejects(
      alice.write('docs/huge.bin', tooBig),
      (e: RoostError) => e.status === 413 && e.code === 'storage_limit',
    );
    await assert.rejects(
      alice.write('docs/huge.bin', tooBig, { onProgress: () => {} }),
      (e: RoostError) => e.status === 413 && e.code === 'storage_limit',
    );
    await assert.rejects(alice.getItem('docs/huge.bin'), (e: RoostError) => e.status === 404);
    await assert.rejects(
      alice.read('docs/missing.txt'),
      (e: RoostError) => e.status === 404 && e.code === 'not_found' && e.operation === 'read',
    );
    // URL parsing would resolve `..` (even as %2E%2E) into another path, another service even:
    // the connector refuses it before sending. `?`, `#` and `%` are only part of a name.
    await assert.rejects(
      alice.removeItem('docs/../../users/api/delete'),
      (e: RoostError) => e.status === 0 && e.code === 'invalid_path' && e.reason('path') === 'invalid',
    );
    assert.throws(
      () => alice.url('./a.txt'),
      (e: RoostError) => e.code === 'invalid_path',
    );
    assert.equal((await alice.getItem('docs')).type, 'd'); // alice's token, so her account, still works
    await alice.write('docs/odd ?#%.txt', 'odd');
    assert.deepEqual(
      (await alice.list('docs', { type: 'f' })).items.some((e) => e.name === 'odd ?#%.txt'),
      true,
    );
    await assert.rejects(
      bob.removeItem('docs/odd ?#%.txt'),
      (e: RoostError) => e.status === 403 && e.code === 'not_allowed',
    );
  });

  test('every operation of a file store was called through the connector', () => {
    coverage.assertCalled(documentedOperations('filestore'));
  });
});
