import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Upload as TusUpload } from 'tus-js-client';
import { defineExtension, refuse } from '../../src/roost.js';
import { openTusPatch, patternedBytes, tusCalls, tusMetadata as meta } from '../helpers/file-requests.js';
import { type MotoBucket, resumableUploadsBucket } from '../helpers/moto-server.js';
import { s3Credentials } from '../helpers/s3-server.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Resumable uploads (tus 1.0, docs/filestore.md "Resumable uploads") over HTTP: on local blobs in
 * the SQLite pass, on S3 (moto: s3rver lists no multipart parts) in the PostgreSQL pass.
 */
const MiB = 1024 * 1024;
const TUS = { 'tus-resumable': '1.0.0' };
const OCTETS = { ...TUS, 'content-type': 'application/offset+octet-stream' };
/** The store `brief`'s expiry: long enough for a creation and a PATCH on a loaded machine. */
const EXPIRY_SECONDS = 3;
/** A browser app on another origin (`corsOrigins`). */
const APP = 'https://app.example';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A team's hook refusing programs: it runs when the finished upload is written. */
const noPrograms = defineExtension((roost) => {
  roost.hooks.before('file.create', { store: 'files' }, ({ path }) => {
    if (path.endsWith('.exe')) throw refuse({ code: 'no_programs', message: 'No programs.' });
    return undefined;
  });
});

let s: TestServer;
let alice: string;
let bob: string;
let skipReason: string | undefined;
let bucket: MotoBucket | undefined;
const { create, patch, head } = tusCalls(() => s.url);

before(async () => {
  ({ bucket, skipReason } = await resumableUploadsBucket());
  s = await startServer(
    {
      ...(bucket ? { blobs: bucket } : {}),
      // `tiny` for the size limit; `brief` for the expiry (its own: a slow machine must not expire the others).
      fileStores: { files: {}, tiny: { maxFileBytes: 64 * 1024 }, brief: { uploadExpirySeconds: EXPIRY_SECONDS } },
      corsOrigins: [APP],
    },
    { extensions: [noPrograms] },
  );
  alice = await s.createUser('alice');
  bob = await s.createUser('bob');
});
after(async () => {
  await s?.close();
});

async function download(token: string, path: string): Promise<Buffer> {
  const res = await fetch(`${s.url}/files/${path}`, { headers: { 'x-auth-token': token } });
  assert.equal(res.status, 200, `download of ${path}`);
  const got = Buffer.from(await res.arrayBuffer());
  // The ETag is the contents' SHA-256, whether hashed as the bytes came or read again at the end.
  assert.equal(res.headers.get('etag'), `"${createHash('sha256').update(got).digest('base64url')}"`);
  return got;
}

/**
 * A PATCH whose client goes away: `sent` bytes written, then, once the server holds some of them
 * (on S3 a part), the socket destroyed as a killed process's would be. Resolves once it is gone.
 */
async function cutPatch(token: string, location: string, offset: number, whole: Buffer, sent: number) {
  const patching = openTusPatch(s.url, token, location, whole, offset, offset + sent);
  await patching.written;
  for (let tries = 0; tries < 200 && (await head(token, location)).offset <= offset; tries++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  patching.req.destroy();
}

/**
 * PATCH the rest from the offset the server reports, as a client resuming does (tus-js-client
 * too): while the cut request ends it may still hold the upload (423) or add to it after the
 * HEAD (409), then ask again.
 */
async function resume(token: string, location: string, whole: Buffer) {
  for (let tries = 0; tries < 100; tries++) {
    const { offset } = await head(token, location);
    const res = await patch(token, location, offset, whole.subarray(offset));
    if (res.status !== 423 && res.status !== 409) return { ...res, resumedAt: offset };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the upload stayed busy');
}

test('resumable: a cut upload resumes to a byte-exact file, visible (and told) only once complete', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const whole = patternedBytes(7 * MiB + 12345);
  let stop = () => {};
  try {
    const made = await create(alice, 'files', {
      'upload-length': String(whole.length),
      'upload-metadata': meta({ filename: 'big.bin', dir: 'uploads', filetype: 'application/x-test' }),
    });
    assert.equal(made.status, 404, 'the directory must exist first');
    await s.request('/files/@newItem', { name: 'uploads', type: 'd' }, { token: alice });
    const told: string[] = [];
    stop = s.roost.events.on(['file.created', 'file.written'], (e) => told.push(`${e.kind} ${e.path}`));
    const created = await create(alice, 'files', {
      'upload-length': String(whole.length),
      'upload-metadata': meta({ filename: 'big.bin', dir: 'uploads', filetype: 'application/x-test' }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.location, /^\/files\/@uploads\/[0-9a-f-]{36}$/);

    await cutPatch(alice, created.location, 0, whole, 6 * MiB);
    const halfway = await head(alice, created.location);
    assert.equal(halfway.status, 200);
    assert.ok(halfway.offset > 0 && halfway.offset <= 6 * MiB, `offset ${halfway.offset}`);
    assert.equal(halfway.length, String(whole.length));
    const meanwhile = await s.request('/files/uploads/big.bin/@getItem', {}, { token: alice });
    assert.equal(meanwhile.status, 404, 'no entry before the upload is complete');
    assert.deepEqual(told, []);

    const done = await resume(alice, created.location, whole);
    assert.equal(done.status, 204, JSON.stringify(done.body));
    assert.equal(done.offset, whole.length);
    const got = await download(alice, 'uploads/big.bin');
    assert.equal(got.length, whole.length);
    assert.equal(sha256(got), sha256(whole));
    const item = await s.request('/files/uploads/big.bin/@getItem', {}, { token: alice });
    assert.equal(item.body.mime, 'application/x-test');
    assert.equal(item.body.size, whole.length);
    assert.deepEqual(told, ['file.created uploads/big.bin']);
    // The upload is gone once it became the file.
    assert.equal((await head(alice, created.location)).status, 404);
  } finally {
    stop();
  }
});

test('resumable: every byte that came counts at once, while its PATCH is still open', async (t) => {
  if (skipReason) return t.skip(skipReason);
  // On S3 a streaming PATCH's bytes count by whole parts (the library's rule).
  if (bucket) return t.skip('local blobs: the offset is the partial file');
  const whole = patternedBytes(300_000, 5);
  const created = await create(alice, 'files', {
    'upload-length': String(whole.length),
    'upload-metadata': meta({ path: 'open.bin' }),
  });
  // Not a round number of the server's pieces (http/routes/upload-routes.ts): none is held back.
  const open = openTusPatch(s.url, alice, created.location, whole, 0, 100_003);
  await open.written;
  let told = 0;
  for (let tries = 0; tries < 100 && told < 100_003; tries++) {
    told = (await head(alice, created.location)).offset;
    if (told < 100_003) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(told, 100_003);
  open.req.end(whole.subarray(100_003));
  assert.equal(await open.answer, 204);
  assert.equal(sha256(await download(alice, 'open.bin')), sha256(whole));
});

test('resumable: offsets that do not match, bytes past Upload-Length, and another caller are refused', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const whole = patternedBytes(1000, 7);
  const created = await create(alice, 'files', {
    'upload-length': '1000',
    'upload-metadata': meta({ path: 'offsets.bin' }),
  });
  assert.equal(created.status, 201);
  assert.equal((await patch(alice, created.location, 0, whole.subarray(0, 400))).offset, 400);

  const wrong = await patch(alice, created.location, 0, whole.subarray(0, 400));
  assert.equal(wrong.status, 409);
  assert.equal(wrong.body.code, 'offset_mismatch');
  const beyond = await patch(alice, created.location, 400, patternedBytes(700, 3));
  assert.equal(beyond.status, 413);
  assert.equal(beyond.body.code, 'upload_length_exceeded');
  assert.equal((await head(alice, created.location)).offset, 400, 'refused bytes are not kept');
  // The header checks the library makes itself answer in Roost's body, with a code of docs/errors.md.
  const typed = await patch(alice, created.location, 400, whole.subarray(400), { 'content-type': 'text/plain' });
  assert.equal(typed.status, 400);
  assert.equal(typed.body.code, 'content_type_required');
  const malformed = await patch(alice, created.location, 400, whole.subarray(400), { 'upload-offset': 'x' });
  assert.equal(malformed.status, 400);
  assert.deepEqual(
    [malformed.body.code, malformed.body.message],
    ['invalid_header', 'Not a value tus allows in upload-offset.'],
  );
  assert.equal((await head(alice, created.location)).offset, 400);
  // HEAD tells the client's metadata back, not Roost's own (who made it, where it goes).
  const told = await fetch(s.url + created.location, { method: 'HEAD', headers: { ...TUS, 'x-auth-token': alice } });
  assert.equal(told.headers.get('upload-metadata'), meta({ path: 'offsets.bin' }));

  // Bob, and an anonymous caller, holding Alice's URL find no such upload, whatever they ask.
  for (const other of [bob, null]) {
    assert.equal((await head(other, created.location)).status, 404);
    const forged = await patch(other, created.location, 400, whole.subarray(400));
    assert.equal(forged.status, 404);
    assert.equal(forged.body.code, 'not_found');
    const del = await fetch(s.url + created.location, {
      method: 'DELETE',
      headers: { ...TUS, ...(other ? { 'x-auth-token': other } : {}) },
    });
    assert.equal(del.status, 404);
  }
  // Alice's own upload at another store's address is no upload there either (on S3 the stores share a bucket).
  const elsewhere = created.location.replace('/files/', '/tiny/');
  assert.equal((await head(alice, elsewhere)).status, 404);
  const forgedStore = await patch(alice, elsewhere, 400, whole.subarray(400));
  assert.equal(forgedStore.status, 404);
  assert.equal(forgedStore.body.code, 'not_found');
  assert.equal((await head(alice, created.location)).offset, 400);
  const done = await patch(alice, created.location, 400, whole.subarray(400));
  assert.equal(done.status, 204);
  assert.equal(sha256(await download(alice, 'offsets.bin')), sha256(whole));
});

test('resumable: the caller needs the write permission and the store its size limit, before any byte', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const anonymous = await create(null, 'files', { 'upload-length': '10', 'upload-metadata': meta({ path: 'a.txt' }) });
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.code, 'not_signed_in');

  // Alice's file is not Bob's to replace; a file of his own is.
  await s.request('/files/alice.txt/@write', undefined, { token: alice, method: 'PUT', raw: 'mine' });
  const over = await create(bob, 'files', { 'upload-length': '5', 'upload-metadata': meta({ path: 'alice.txt' }) });
  assert.equal(over.status, 403);
  assert.equal(over.body.code, 'not_allowed');

  // A length that is no number, refused by the library before Roost's hooks: still Roost's failure body.
  for (const length of ['abc', '-1', '1e3']) {
    const malformed = await create(alice, 'files', {
      'upload-length': length,
      'upload-metadata': meta({ path: 'm.txt' }),
    });
    assert.equal(malformed.status, 400, length);
    assert.equal(malformed.body.result, false);
    assert.equal(typeof malformed.body.code, 'string');
  }

  const unnamed = await create(alice, 'files', { 'upload-length': '5' });
  assert.equal(unnamed.status, 422);
  assert.deepEqual(unnamed.body.invalid, [['path', 'required']]);
  const badPath = await create(alice, 'files', { 'upload-length': '5', 'upload-metadata': meta({ path: '../x' }) });
  assert.equal(badPath.status, 422);
  assert.equal(badPath.body.code, 'invalid_path');

  const large = await create(alice, 'tiny', {
    'upload-length': String(64 * 1024 + 1),
    'upload-metadata': meta({ path: 'large.bin' }),
  });
  assert.equal(large.status, 413);
  assert.equal(large.body.code, 'storage_limit');
  // Without a length told first, the bytes themselves are held to the limit.
  const deferred = await create(alice, 'tiny', {
    'upload-defer-length': '1',
    'upload-metadata': meta({ path: 'd.bin' }),
  });
  assert.equal(deferred.status, 201);
  const past = await patch(alice, deferred.location, 0, patternedBytes(64 * 1024 + 10));
  assert.equal(past.status, 413);
  assert.equal(past.body.code, 'storage_limit');
  assert.equal((await head(alice, deferred.location)).offset, 0, 'nothing kept of the refused bytes');
  const listed = await s.request('/tiny/@list', {}, { token: alice });
  assert.deepEqual(listed.body.items, [], 'nothing entered');
});

test('resumable: two PATCHes at once on one upload: the first wins whole, the other is told 423', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const whole = patternedBytes(2 * MiB, 5);
  const created = await create(alice, 'files', {
    'upload-length': String(whole.length),
    'upload-metadata': meta({ path: 'parallel.bin' }),
  });
  const url = new URL(s.url + created.location);
  const first = new Promise<{ status: number; offset: number }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PATCH',
        headers: { ...OCTETS, 'x-auth-token': alice, 'upload-offset': '0', 'content-length': String(whole.length) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, offset: Number(res.headers['upload-offset']) }));
      },
    );
    req.on('error', reject);
    req.write(whole.subarray(0, MiB), () => {
      setTimeout(async () => {
        const second = await patch(alice, created.location, 0, whole);
        assert.equal(second.status, 423);
        assert.equal(second.body.code, 'upload_busy');
        req.end(whole.subarray(MiB));
      }, 300);
    });
  });
  const won = await first;
  assert.equal(won.status, 204);
  assert.equal(won.offset, whole.length);
  assert.equal(sha256(await download(alice, 'parallel.bin')), sha256(whole));
});

test('resumable: checksums (sha1) keep a matching chunk and refuse one that does not (460)', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const whole = patternedBytes(3000, 9);
  const created = await create(alice, 'files', {
    'upload-length': '3000',
    'upload-metadata': meta({ path: 'sum.bin' }),
  });
  const sha1 = (b: Buffer) => `sha1 ${createHash('sha1').update(b).digest('base64')}`;
  const ok = await patch(alice, created.location, 0, whole.subarray(0, 1000), {
    'upload-checksum': sha1(whole.subarray(0, 1000)),
  });
  assert.equal(ok.status, 204);
  assert.equal(ok.offset, 1000);
  const bad = await patch(alice, created.location, 1000, whole.subarray(1000, 2000), {
    'upload-checksum': sha1(patternedBytes(1000, 2)),
  });
  assert.equal(bad.status, 460);
  assert.equal(bad.body.code, 'checksum_mismatch');
  assert.equal((await head(alice, created.location)).offset, 1000, 'the chunk was not kept');
  const unknown = await patch(alice, created.location, 1000, whole.subarray(1000), { 'upload-checksum': 'crc99 AAAA' });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'checksum_unsupported');
  const rest = await patch(alice, created.location, 1000, whole.subarray(1000), {
    'upload-checksum': sha1(whole.subarray(1000)),
  });
  assert.equal(rest.status, 204);
  assert.equal(sha256(await download(alice, 'sum.bin')), sha256(whole));
});

test('resumable: an expired upload answers 410, and the sweep leaves nothing of it', async (t) => {
  if (skipReason) return t.skip(skipReason);
  // On local disk a store nothing was ever uploaded to has nothing to sweep (no folder of uploads yet).
  if (!bucket) assert.equal(await s.roost.fileStores.get('tiny')?.uploads?.sweepExpired(), 0);
  const began = Date.now();
  const created = await create(alice, 'brief', {
    'upload-length': '100',
    'upload-metadata': meta({ path: 'late.bin' }),
  });
  assert.equal((await patch(alice, created.location, 0, patternedBytes(50))).status, 204);
  await new Promise((resolve) => setTimeout(resolve, began + EXPIRY_SECONDS * 1000 + 300 - Date.now()));
  const late = await patch(alice, created.location, 50, patternedBytes(50));
  assert.equal(late.status, 410);
  assert.equal(late.body.code, 'upload_expired');
  const uploads = s.roost.fileStores.get('brief')?.uploads;
  assert.ok(uploads);
  // A partial file without its record (its process stopped between the two), as old: swept too.
  const folder = join(s.roost.config.dataDir, 'blobs', 'uploads', 'brief');
  if (!bucket) {
    const orphan = join(folder, randomUUID());
    await writeFile(orphan, 'partial');
    await utimes(orphan, new Date(began - 3_600_000), new Date(began - 3_600_000));
  }
  assert.ok((await uploads.sweepExpired()) >= (bucket ? 1 : 2));
  // Gone: 404, or 410 where the library still remembers it expired (@tus/s3-store keeps its record in memory).
  assert.ok([404, 410].includes((await head(alice, created.location)).status));
  if (!bucket) {
    assert.deepEqual(await readdir(folder), []);
    return;
  }
  const { S3Client, ListObjectsV2Command, ListMultipartUploadsCommand } = await import('@aws-sdk/client-s3');
  const client = new S3Client({ ...bucket, credentials: s3Credentials() });
  try {
    const id = created.location.split('/').at(-1);
    const objects = await client.send(new ListObjectsV2Command({ Bucket: bucket.bucket, Prefix: `blobs/${id}` }));
    assert.deepEqual(objects.Contents ?? [], [], 'no object of the upload is left');
    const open = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket.bucket }));
    assert.deepEqual(open.Uploads ?? [], [], 'its multipart upload was aborted');
  } finally {
    client.destroy();
  }
});

test('resumable: termination removes an upload; creation-with-upload of a whole small file', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const created = await create(alice, 'files', {
    'upload-length': '10',
    'upload-metadata': meta({ path: 'gone.bin' }),
  });
  const del = await fetch(s.url + created.location, { method: 'DELETE', headers: { ...TUS, 'x-auth-token': alice } });
  assert.equal(del.status, 204);
  assert.equal((await head(alice, created.location)).status, 404);

  const small = patternedBytes(500, 11);
  /** A creation with `bytes` of `small` in its body (tus's creation-with-upload). */
  const createWith = (path: string, bytes: Buffer) =>
    create(
      alice,
      'files',
      { 'upload-length': '500', 'upload-metadata': meta({ path }), 'content-type': 'application/offset+octet-stream' },
      bytes,
    );
  const once = await createWith('once.bin', small);
  assert.equal(once.status, 201, JSON.stringify(once.body));
  assert.equal(once.headers.get('upload-offset'), '500');
  assert.equal(sha256(await download(alice, 'once.bin')), sha256(small));
  // Its first bytes only in the creation: found at that offset, the rest by PATCH.
  const first = await createWith('twice.bin', small.subarray(0, 200));
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.deepEqual(await head(alice, first.location), { status: 200, offset: 200, length: '500' });
  assert.equal((await patch(alice, first.location, 200, small.subarray(200))).status, 204);
  assert.equal(sha256(await download(alice, 'twice.bin')), sha256(small));
  // Made without a byte: found at offset 0.
  const empty = await create(alice, 'files', { 'upload-length': '5', 'upload-metadata': meta({ path: 'later.bin' }) });
  assert.deepEqual(await head(alice, empty.location), { status: 200, offset: 0, length: '5' });
});

test('resumable: tus-js-client uploads against Roost unchanged, in chunks', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const whole = patternedBytes(3 * MiB + 17, 13);
  const offsets: number[] = [];
  await new Promise<void>((resolve, reject) => {
    const upload = new TusUpload(whole, {
      endpoint: `${s.url}/files/@uploads`,
      headers: { 'x-auth-token': alice },
      metadata: { filename: 'client.bin', filetype: 'application/octet-stream' },
      chunkSize: MiB,
      retryDelays: [100, 500],
      onChunkComplete: (_chunk, accepted) => offsets.push(accepted),
      onSuccess: () => resolve(),
      onError: reject,
    });
    upload.start();
  });
  assert.deepEqual(offsets, [MiB, 2 * MiB, 3 * MiB, whole.length]);
  assert.equal(sha256(await download(alice, 'client.bin')), sha256(whole));
});

test('resumable: a hook refusing the finished file refuses the last PATCH, and leaves no blob behind', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const blobs = s.roost.blobs.forStore('files');
  const count = async () => {
    let n = 0;
    for await (const _ of blobs.list()) n++;
    return n;
  };
  const before = await count();
  const whole = patternedBytes(2000, 17);
  const created = await create(alice, 'files', {
    'upload-length': '2000',
    'upload-metadata': meta({ path: 'setup.exe' }),
  });
  assert.equal(created.status, 201);
  assert.equal((await patch(alice, created.location, 0, whole.subarray(0, 1000))).status, 204);
  const refused = await patch(alice, created.location, 1000, whole.subarray(1000));
  assert.equal(refused.status, 422);
  assert.equal(refused.body.code, 'no_programs');
  assert.equal((await s.request('/files/setup.exe/@getItem', {}, { token: alice })).status, 404);
  assert.equal((await head(alice, created.location)).status, 404);
  assert.equal(await count(), before, 'the finished bytes were removed');
});

test('resumable: a browser app of another origin may speak tus (CORS preflight and exposed headers)', async (t) => {
  if (skipReason) return t.skip(skipReason);
  const preflight = await fetch(`${s.url}/files/@uploads/00000000-0000-4000-8000-000000000000`, {
    method: 'OPTIONS',
    headers: { origin: APP, 'access-control-request-method': 'PATCH' },
  });
  assert.equal(preflight.status, 204);
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /\bPATCH\b/);
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /\bupload-offset\b/);
  const created = await fetch(`${s.url}/files/@uploads`, {
    method: 'POST',
    headers: {
      ...TUS,
      origin: APP,
      'x-auth-token': alice,
      'upload-length': '1',
      'upload-metadata': meta({ path: 'c' }),
    },
  });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('access-control-allow-origin'), APP);
  assert.match(created.headers.get('access-control-expose-headers') ?? '', /\blocation\b.*\bupload-offset\b/);
});
