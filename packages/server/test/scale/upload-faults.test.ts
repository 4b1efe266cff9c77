import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/core/config.js';
import { postgres } from '../../src/storage/database.js';
import { openTusPatch, patternedBytes } from '../helpers/file-requests.js';
import { sharedMoto, type TestMoto } from '../helpers/moto-server.js';
import { s3Credentials } from '../helpers/s3-server.js';
import { addAccountBeside, createMigratedPostgresDatabase, PASSWORD } from '../helpers/test-server.js';
import { serveRoost, type ServedRoost } from '../helpers/roost-command.js';
import { writeConfig } from '../security/support/child-roost.js';
import { onPostgres } from './scale-helpers.js';

/**
 * Faults of resumable uploads (issue 41, "Bad input and faults"; docs/filestore.md "Resumable
 * uploads"), against `roost serve` in processes of its own: the server killed (SIGKILL) while a
 * PATCH streams, then started again, and the client's socket destroyed at seeded-random points
 * of a body: each time the client resumes from the offset HEAD tells, and the file is byte-exact.
 * Uploads whose every byte was stored by the killed process but which it had not made files yet
 * are made files by the HEAD a resuming client asks (it sends nothing more).
 * Local blobs on SQLite (pass 1); an S3 bucket (moto: multipart parts) on PostgreSQL (pass 2),
 * where two processes also share one upload: a second PATCH on the other process while the first
 * streams is refused (423), across processes (storage/upload-locks.ts).
 */
const MiB = 1024 * 1024;
const TUS = { 'tus-resumable': '1.0.0' };
const OCTETS = { ...TUS, 'content-type': 'application/offset+octet-stream' };
/** On S3 a multipart upload of 5 MiB parts: two of them and an incomplete part's bytes. */
const SIZE = onPostgres ? 11 * MiB + 4321 : 4 * MiB + 4321;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Seeded, so that a failure comes back at the same cuts. */
function seededRandom(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

async function head(base: string, token: string, location: string) {
  const res = await fetch(base + location, { method: 'HEAD', headers: { ...TUS, 'x-auth-token': token } });
  return { status: res.status, offset: Number(res.headers.get('upload-offset')) };
}

async function create(base: string, token: string, path: string, size: number): Promise<string> {
  const res = await fetch(`${base}/files/@uploads`, {
    method: 'POST',
    headers: {
      ...TUS,
      'x-auth-token': token,
      'upload-length': String(size),
      'upload-metadata': `path ${Buffer.from(path).toString('base64')}`,
    },
  });
  assert.equal(res.status, 201, await res.text());
  return res.headers.get('location') ?? '';
}

async function patch(base: string, token: string, location: string, offset: number, body: Buffer) {
  const res = await fetch(base + location, {
    method: 'PATCH',
    headers: { ...OCTETS, 'x-auth-token': token, 'upload-offset': String(offset) },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  return { status: res.status, offset: Number(res.headers.get('upload-offset')), body: text ? JSON.parse(text) : null };
}

/** Wait until the server holds more than `offset` bytes of the upload (on S3: a part went up). */
async function heldPast(base: string, token: string, location: string, offset: number): Promise<number> {
  for (let tries = 0; tries < 300; tries++) {
    const now = await head(base, token, location);
    if (now.offset > offset) return now.offset;
    await pause(50);
  }
  throw new Error(`the server held no byte past ${offset}`);
}

/**
 * The rest from the offset HEAD tells, as a resuming client sends it: the cut request may still
 * hold the upload a moment (423) or add to it after the HEAD (409); then ask again.
 */
async function resume(base: string, token: string, location: string, whole: Buffer) {
  // Up to 30 s: on a loaded machine a cut request on S3 may take that long to end.
  for (let tries = 0; tries < 300; tries++) {
    const { offset } = await head(base, token, location);
    const res = await patch(base, token, location, offset, whole.subarray(offset));
    if (res.status !== 423 && res.status !== 409) return res;
    await pause(100);
  }
  throw new Error('the upload stayed busy');
}

/**
 * The offset once the cut request ended on the server: an empty PATCH there is refused (423)
 * while it holds the upload. (On S3 a HEAD meanwhile may tell less than before: @tus/s3-store
 * takes the last incomplete part away while it writes it again with the new bytes.)
 */
async function settledOffset(base: string, token: string, location: string): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const { offset } = await head(base, token, location);
    const res = await patch(base, token, location, offset, Buffer.alloc(0));
    if (res.status === 204) return res.offset;
    await pause(100);
  }
  throw new Error('the upload stayed busy');
}

async function download(base: string, token: string, path: string): Promise<Buffer> {
  const res = await fetch(`${base}/files/${path}`, { headers: { 'x-auth-token': token } });
  assert.equal(res.status, 200, `download of ${path}`);
  const got = Buffer.from(await res.arrayBuffer());
  // The ETag is the contents' SHA-256: hashed as the bytes came, or read again after a restart.
  assert.equal(res.headers.get('etag'), `"${createHash('sha256').update(got).digest('base64url')}"`);
  return got;
}

async function signIn(server: ServedRoost): Promise<string> {
  const res = await fetch(`${server.url}/users/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: 'alice', password: PASSWORD }),
  });
  const token = ((await res.json()) as { token?: string }).token;
  assert.ok(token, 'signed in');
  return token;
}

const errorsLogged = (server: ServedRoost) =>
  server
    .output()
    .split('\n')
    .filter((l) => /"level":(50|60)/.test(l));

type S3Bucket = Awaited<ReturnType<TestMoto['newBucket']>>;
const WHERE = onPostgres ? 'PostgreSQL, S3' : 'SQLite, local blobs';

describe(`resumable uploads against killed servers and cut clients (${WHERE})`, () => {
  let dir = '';
  let drop: (() => Promise<void>) | undefined;
  let pgUrl = '';
  let skipReason: string | undefined;
  const configFiles: string[] = [];
  const running: ServedRoost[] = [];
  /** The second process, started by the first test while the first process starts again. */
  let starting: Promise<ServedRoost> | undefined;
  const start = async (n: number) => {
    // The roost command as the tests run it (bundled once: a start costs less), on its configuration file.
    const server = await serveRoost(dir, { ROOST_CONFIG: configFiles[n] ?? '' }, 120_000);
    running.push(server);
    return server;
  };

  let bucket: S3Bucket | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-upload-faults-'));
    const moto = onPostgres ? await sharedMoto() : null;
    if (onPostgres && !moto) {
      skipReason = 'moto_server is not installed: resumable uploads to S3 are not tested here';
      return;
    }
    bucket = await moto?.newBucket();
    const pg = onPostgres ? await createMigratedPostgresDatabase() : undefined;
    drop = pg?.drop;
    pgUrl = pg?.directUrl ?? '';
    const shared = {
      host: '127.0.0.1',
      port: 0,
      logLevel: 'info',
      fileStores: { files: {} },
      ...(bucket ? { blobs: bucket } : {}),
      ...pg?.settings,
    };
    // Two processes on PostgreSQL and one bucket, each with its own data directory; on SQLite one.
    for (const n of onPostgres ? [0, 1] : [0]) {
      const dataDir = join(dir, `data-${n}`);
      await mkdir(dataDir);
      const config = { ...shared, dataDir };
      configFiles.push(await writeConfig(dataDir, config));
      if (n === 0) await addAccountBeside(parseConfig(config), 'alice');
    }
  });
  after(async () => {
    for (const server of running) server.child.kill('SIGKILL');
    await Promise.all(running.map((server) => server.exited));
    await drop?.();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * Uploads sent but for their last bytes; `lastBytes`, once the server is dead, stores those as
   * its last PATCH would have before it died: on local blobs the file's last byte; on S3 the last
   * part of the multipart upload, which the process completed (`completed.bin`) or did not.
   */
  async function strandedUploads(base: string, token: string) {
    const uploads: Array<{ path: string; location: string; whole: Buffer }> = [];
    const paths = bucket ? ['open.bin', 'completed.bin'] : ['stranded.bin'];
    // On S3 a first part of 5 MiB (the bucket's partSizeBytes) is stored whole, the rest is the last part.
    const kept = bucket ? 5 * MiB : 3 * MiB;
    for (const [n, path] of paths.entries()) {
      const whole = patternedBytes(kept + 1000, 50 + n);
      const location = await create(base, token, path, whole.length);
      assert.equal((await patch(base, token, location, 0, whole.subarray(0, kept))).offset, kept);
      uploads.push({ path, location, whole });
    }
    async function lastBytes(): Promise<void> {
      for (const { path, location, whole } of uploads) {
        const uuid = location.split('/').at(-1) ?? '';
        if (!bucket) {
          await appendFile(join(dir, 'data-0', 'blobs', 'uploads', 'files', uuid), whole.subarray(kept));
          continue;
        }
        const sdk = await import('@aws-sdk/client-s3');
        const client = new sdk.S3Client({ ...bucket, credentials: s3Credentials() });
        try {
          const Bucket = bucket.bucket;
          const Key = `${bucket.prefix}${uuid}`;
          const info = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: `${Key}.info` }));
          const UploadId = info.Metadata?.['upload-id'];
          const Body = whole.subarray(kept);
          await client.send(new sdk.UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 2, Body }));
          if (path !== 'completed.bin') continue;
          const { Parts = [] } = await client.send(new sdk.ListPartsCommand({ Bucket, Key, UploadId }));
          const MultipartUpload = { Parts: Parts.map(({ ETag, PartNumber }) => ({ ETag, PartNumber })) };
          await client.send(new sdk.CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload }));
        } finally {
          client.destroy();
        }
      }
    }
    return { uploads, lastBytes };
  }

  test('killed mid-PATCH, started again, cut three times by the client: byte-exact', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const whole = patternedBytes(SIZE, 41);
    let server = await start(0);
    let token = await signIn(server);
    const location = await create(server.url, token, 'killed.bin', whole.length);

    // Uploads whose last bytes the dying process would have stored, but not yet made a file.
    const stranded = await strandedUploads(server.url, token);

    // The server dies with a PATCH mid-body: some bytes held, more on their way.
    const sent = Math.floor(whole.length * 0.7);
    const cut = openTusPatch(server.url, token, location, whole, 0, sent);
    await cut.written;
    await heldPast(server.url, token, location, 0);
    server.child.kill('SIGKILL');
    await server.exited;
    assert.equal(server.child.signalCode, 'SIGKILL');
    cut.req.destroy();
    await stranded.lastBytes();

    // The second process of the next test starts meanwhile (PostgreSQL).
    if (onPostgres) {
      starting = start(1);
      starting.catch(() => {});
    }
    server = await start(0);
    token = await signIn(server);
    // A resuming client asks HEAD, is told every byte is there, and sends nothing more: the file is made.
    for (const upload of stranded.uploads) {
      const told = await head(server.url, token, upload.location);
      assert.equal(told.status, 200, upload.path);
      assert.equal(told.offset, upload.whole.length, upload.path);
      assert.equal(sha256(await download(server.url, token, upload.path)), sha256(upload.whole), upload.path);
      assert.equal((await head(server.url, token, upload.location)).status, 404, `${upload.path} became the file`);
      const late = await patch(server.url, token, upload.location, upload.whole.length, Buffer.alloc(0));
      assert.equal(late.status, 404, `${upload.path}: made the file once`);
      assert.equal(sha256(await download(server.url, token, upload.path)), sha256(upload.whole), upload.path);
    }
    const afterKill = await head(server.url, token, location);
    assert.equal(afterKill.status, 200);
    assert.ok(afterKill.offset > 0 && afterKill.offset <= sent, `offset ${afterKill.offset} of ${sent} sent`);

    // The client's socket destroyed mid-body at seeded-random points of the rest.
    const random = seededRandom(20261129);
    for (let cuts = 0; cuts < 3; cuts++) {
      const { offset } = await head(server.url, token, location);
      const upTo = offset + 1 + Math.floor(random() * (whole.length - offset - 2));
      const patching = openTusPatch(server.url, token, location, whole, offset, upTo);
      await patching.written;
      await pause(150);
      patching.req.destroy();
      const now = await settledOffset(server.url, token, location);
      assert.ok(now >= offset && now <= upTo, `cut ${cuts}: offset ${now} in ${offset}..${upTo}`);
    }

    const done = await resume(server.url, token, location, whole);
    assert.equal(done.status, 204, JSON.stringify(done.body));
    assert.equal(done.offset, whole.length);
    assert.equal(sha256(await download(server.url, token, 'killed.bin')), sha256(whole));
    assert.equal((await head(server.url, token, location)).status, 404, 'the upload became the file');
    assert.deepEqual(errorsLogged(server), []);
  });

  test('two processes, one upload: a PATCH on the other process while one streams is told 423', async (t) => {
    if (skipReason) return t.skip(skipReason);
    if (!onPostgres) return t.skip('runs in the PostgreSQL pass (SQLite has one process)');
    const b = await (starting ?? start(1));
    const a = running.find((s) => s !== b && s.child.exitCode === null && s.child.signalCode === null);
    assert.ok(a, 'the first process runs');
    const tokenA = await signIn(a);
    const tokenB = await signIn(b);
    const whole = patternedBytes(3 * MiB, 43);
    const location = await create(a.url, tokenA, 'shared.bin', whole.length);

    const first = openTusPatch(a.url, tokenA, location, whole, 0, MiB);
    await first.written;
    const held = await heldPast(b.url, tokenB, location, -1);
    const second = await patch(b.url, tokenB, location, held, whole.subarray(held));
    assert.equal(second.status, 423, JSON.stringify(second.body));
    assert.equal(second.body.code, 'upload_busy');
    // The first goes on whole.
    first.req.end(whole.subarray(MiB));
    assert.equal(await first.answer, 204);
    assert.equal(sha256(await download(b.url, tokenB, 'shared.bin')), sha256(whole));
    // The other process still keeps the upload's record in memory: it is a file all the same, made once.
    assert.equal((await head(b.url, tokenB, location)).status, 404);
    assert.equal((await patch(b.url, tokenB, location, whole.length, Buffer.alloc(0))).status, 404);
    assert.equal(sha256(await download(a.url, tokenA, 'shared.bin')), sha256(whole));

    // The connection that holds a process's upload locks drops (its backend ended): its PATCH
    // stops, keeping what it wrote, and the other process takes the upload; the first opens a
    // connection again for its next upload.
    const dropped = await create(a.url, tokenA, 'dropped.bin', whole.length);
    const cutOff = openTusPatch(a.url, tokenA, dropped, whole, 0, MiB);
    await cutOff.written;
    await heldPast(a.url, tokenA, dropped, -1);
    assert.equal((await patch(b.url, tokenB, dropped, 0, whole)).status, 423);
    const admin = new (postgres().Client)({ connectionString: pgUrl });
    await admin.connect();
    try {
      const ended = await admin.query(
        "select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted " +
          'and database = (select oid from pg_database where datname = current_database())',
      );
      assert.equal(ended.rowCount, 1, "the first process's locks connection, holding one upload");
    } finally {
      await admin.end();
    }
    await cutOff.answer;
    cutOff.req.destroy();
    const taken = await resume(b.url, tokenB, dropped, whole);
    assert.equal(taken.status, 204, JSON.stringify(taken.body));
    assert.equal(sha256(await download(b.url, tokenB, 'dropped.bin')), sha256(whole));

    // Killed while it holds an upload, a process holds it no more: the other takes it at once.
    const again = await create(a.url, tokenA, 'orphan.bin', whole.length);
    const held2 = openTusPatch(a.url, tokenA, again, whole, 0, MiB);
    await held2.written;
    // Once the first process holds some of its bytes (a pause was too short on a loaded machine).
    await heldPast(a.url, tokenA, again, -1);
    const busy = await patch(b.url, tokenB, again, 0, whole);
    assert.equal(busy.status, 423, 'held by the first process while it lives');
    a.child.kill('SIGKILL');
    await a.exited;
    held2.req.destroy();
    const done = await resume(b.url, tokenB, again, whole);
    assert.equal(done.status, 204, JSON.stringify(done.body));
    assert.equal(sha256(await download(b.url, tokenB, 'orphan.bin')), sha256(whole));
    assert.deepEqual(errorsLogged(b), []);
  });
});
