import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { filestore, isRoostError, type Progress } from '../src/index.js';
import { startRoost, type TestServer } from './helpers/roost.js';

/** `upload(file, { resumable: true })`: the tus protocol through tus-js-client, in Node, against a real Roost. */

const MiB = 1024 * 1024;
const sha256 = (bytes: Uint8Array | ArrayBuffer) => createHash('sha256').update(new Uint8Array(bytes)).digest('hex');

let s: TestServer;
let token: string;
before(async () => {
  s = await startRoost({ maxFileBytes: 4 * MiB });
  token = await s.createUser('alice');
});
after(() => s.close());

test('resumable upload: in chunks with progress, byte-exact, its type from the Blob', async () => {
  const files = filestore('files', { baseUrl: s.url, token });
  const bytes = randomBytes(3 * MiB + 5);
  const seen: Progress[] = [];
  const answer = await files.upload('big.bin', new Blob([bytes], { type: 'application/x-big' }), {
    resumable: true,
    chunkSize: MiB,
    onProgress: (p) => seen.push(p),
  });
  assert.deepEqual(answer, { result: true });
  const read = await files.read('big.bin', { as: 'arrayBuffer' });
  assert.equal(sha256(read), sha256(bytes));
  assert.equal((await files.getItem('big.bin')).mime, 'application/x-big');
  assert.ok(seen.length >= 4, `${seen.length} progress events`);
  assert.deepEqual(seen.at(-1), { loaded: bytes.length, total: bytes.length });
});

/** How many requests of `method` the server counted at its tus routes (/metrics, as an administrator). */
async function tusRequests(method: string): Promise<number> {
  const metrics = await fetch(`${s.url}/metrics`, { headers: { 'x-auth-token': await s.adminToken() } });
  const pattern = new RegExp(
    `^roost_http_requests_total\\{method="${method}",route="/files/@uploads[^"]*"[^}]*\\} (\\d+)$`,
    'gm',
  );
  return [...(await metrics.text()).matchAll(pattern)].reduce((sum, [, n]) => sum + Number(n), 0);
}

test('resumable upload: a small file goes whole in the creating request, a larger one by PATCH', async () => {
  const files = filestore('files', { baseUrl: s.url, token });
  const [posts, patches] = [await tusRequests('POST'), await tusRequests('PATCH')];
  const small = randomBytes(200 * 1024);
  assert.deepEqual(await files.upload('small.bin', new Blob([small]), { resumable: true }), { result: true });
  assert.equal(sha256(await files.read('small.bin', { as: 'arrayBuffer' })), sha256(small));
  assert.deepEqual([await tusRequests('POST'), await tusRequests('PATCH')], [posts + 1, patches]);
  // Larger than its chunk: made first, then its bytes by PATCH, so a dropped connection resumes.
  const chunked = randomBytes(300 * 1024);
  await files.upload('chunked.bin', new Blob([chunked]), { resumable: true, chunkSize: 128 * 1024 });
  assert.equal(sha256(await files.read('chunked.bin', { as: 'arrayBuffer' })), sha256(chunked));
  assert.deepEqual([await tusRequests('POST'), await tusRequests('PATCH')], [posts + 2, patches + 3]);
});

test("resumable upload: the server's refusal is a RoostError with its code", async () => {
  const files = filestore('files', { baseUrl: s.url, token });
  const tooLarge = await files.upload('large.bin', new Blob([new Uint8Array(4 * MiB + 1)]), { resumable: true }).then(
    () => null,
    (err: unknown) => err,
  );
  assert.ok(isRoostError(tooLarge));
  assert.equal(tooLarge.status, 413);
  assert.equal(tooLarge.code, 'storage_limit');
  const anonymous = filestore('files', { baseUrl: s.url });
  const refused = await anonymous.upload('a.bin', new Blob(['x']), { resumable: true }).catch((err: unknown) => err);
  assert.ok(isRoostError(refused));
  assert.equal(refused.code, 'not_signed_in');
});
