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
