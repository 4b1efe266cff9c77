import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { ConfigError, parseConfig } from '../../src/core/config.js';
import { ANONYMOUS } from '../../src/core/permissions.js';
import { defineExtension, programCaller, refuse } from '../../src/roost.js';
import { s3Credentials, sharedS3 } from '../helpers/s3-server.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Direct uploads and downloads (filestore/direct-ops.ts, docs/filestore.md "Direct uploads and
 * downloads") over HTTP, against the suite's S3 server (s3rver), on SQLite and PostgreSQL. Which
 * check is whose: s3rver checks a presigned URL's expiry (so does AWS), but no V4 signature, so it
 * takes a PUT of another length or type than signed (AWS refuses it); Roost's `@directFinish`
 * checks expiry, size and type again, whatever S3 let through. After every refusal the bucket
 * holds what it held before: no staging object, no blob.
 */

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

// Refuses a file named `*.exe` when it is recorded (file-hooks.ts): a hook runs at the finish, as for any write.
const noPrograms = defineExtension((roost) => {
  roost.hooks.before('file.create', { store: 'files' }, ({ path }) => {
    if (path.endsWith('.exe')) throw refuse({ code: 'no_programs', message: 'No programs.' });
    return undefined;
  });
});

test('direct transfers are refused by the configuration where the blobs are not on S3', () => {
  assert.throws(
    () => parseConfig({ fileStores: { files: { direct: {} } } }),
    (err: Error) =>
      err instanceof ConfigError &&
      /fileStores\.files\.direct: direct uploads .* need the store's blobs on S3/.test(err.message),
  );
});

describe('direct uploads and downloads with S3', () => {
  let s: TestServer;
  let client: S3Client;
  let bucket: string;
  /** Added to Roost's clock: a token expires for Roost while S3 still takes its URL. */
  let ahead = 0;
  let alice: string;
  let bob: string;
  const told: { kind: string }[] = [];

  before(async () => {
    const s3 = await sharedS3();
    const blobs = await s3.newBucket();
    bucket = blobs.bucket;
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: s3Credentials(),
    });
    s = await startServer(
      {
        fileStores: {
          files: { blobs, maxFileBytes: 64, direct: { downloads: true, expiresSeconds: 60 } },
          // URLs of one second: S3's own expiry.
          brief: { blobs, direct: { expiresSeconds: 1 } },
        },
      },
      { clock: { now: () => Date.now() + ahead }, extensions: [noPrograms] },
    );
    s.roost.events.onAny((event) => told.push(event));
    alice = await s.createUser('alice');
    bob = await s.createUser('bob');
  });
  after(async () => {
    client.destroy();
    await s.close();
  });

  /** Every key of the bucket, sorted. */
  async function keys(): Promise<string[]> {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    return (page.Contents ?? []).map((o) => o.Key ?? '').sort();
  }
  const staged = async () => (await keys()).filter((k) => k.startsWith('blobs/direct/'));

  async function ask(path: string, values: object, token?: string) {
    return s.request(`/${path}/@directUpload`, values, token ? { token } : {});
  }
  async function put(ticket: { url: string; headers: Record<string, string> }, body: Buffer, type?: string) {
    const res = await fetch(ticket.url, {
      method: 'PUT',
      headers: { ...ticket.headers, ...(type ? { 'content-type': type } : {}) },
      body: new Uint8Array(body),
    });
    await res.arrayBuffer();
    return res.status;
  }
  const finish = (path: string, upload: string, token?: string) =>
    s.request(`/${path}/@directFinish`, { upload }, token ? { token } : {});

  test('/openapi.json offers each store the direct transfers its setting turns on', async () => {
    const { paths } = (await (await fetch(`${s.url}/openapi.json`)).json()) as { paths: Record<string, object> };
    const offered = (store: string) =>
      ['directUpload', 'directFinish', 'link'].filter((op) => paths[`/${store}/{path}/@${op}`]);
    assert.deepEqual(offered('files'), ['directUpload', 'directFinish', 'link']);
    assert.deepEqual(offered('brief'), ['directUpload', 'directFinish']);
  });

  test('the whole flow: asked, sent to S3, finished, recorded as any write, downloaded from S3', async () => {
    const before = await keys();
    told.length = 0;
    const asked = await ask('files/photo.png', { size: PNG.length, mime: 'image/png' }, alice);
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal(asked.body.method, 'PUT');
    assert.match(asked.body.upload, /^[A-Za-z0-9_-]{32}$/);
    assert.ok(Date.parse(asked.body.expires) > Date.now());
    // The URL signs the length and the type: AWS refuses another (s3rver does not check).
    assert.match(new URL(asked.body.url).searchParams.get('X-Amz-SignedHeaders') ?? '', /content-length;content-type/);
    // Nothing is visible before the finish.
    assert.equal((await s.request('/files/photo.png/@getItem', {}, { token: alice })).status, 404);

    assert.equal(await put(asked.body, PNG), 200);
    const done = await finish('files/photo.png', asked.body.upload, alice);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.size, PNG.length);
    assert.equal(done.body.mime, 'image/png');
    assert.deepEqual(
      told.filter((e) => e.kind.startsWith('file.')).map((e) => e.kind),
      ['file.created'],
    );
    // The staging object went; one new blob holds the file.
    assert.deepEqual(await staged(), []);
    assert.equal((await keys()).length, before.length + 1);

    // A download is a 302 to a presigned GET of the bucket, after the read check.
    const download = await fetch(`${s.url}/files/photo.png`, {
      headers: { authorization: `Bearer ${alice}` },
      redirect: 'manual',
    });
    assert.equal(download.status, 302);
    const location = download.headers.get('location') ?? '';
    assert.ok(location.startsWith(`${new URL(asked.body.url).origin}/${bucket}/blobs/`), location);
    const fromS3 = await fetch(location);
    assert.equal(fromS3.status, 200);
    assert.deepEqual(Buffer.from(await fromS3.arrayBuffer()), PNG);
    assert.equal(fromS3.headers.get('content-type'), 'image/png');
    // `@link` answers the same as JSON; an anonymous caller gets neither.
    const link = await s.request('/files/photo.png/@link', undefined, { token: alice, method: 'GET' });
    assert.equal(link.status, 200);
    assert.ok(link.body.url.startsWith(`${new URL(asked.body.url).origin}/${bucket}/blobs/`));
    assert.equal((await s.request('/files/photo.png/@link', undefined, { method: 'GET' })).status, 401);
    assert.equal((await fetch(`${s.url}/files/photo.png`, { redirect: 'manual' })).status, 401);
  });

  test('replacing a file: the old blob goes, the event says written', async () => {
    const asked = await ask('files/notes.txt', { size: 5, mime: 'text/plain' }, alice);
    await put(asked.body, Buffer.from('first'));
    assert.equal((await finish('files/notes.txt', asked.body.upload, alice)).status, 200);
    const before = await keys();
    told.length = 0;
    const again = await ask('files/notes.txt', { size: 6, mime: 'text/plain' }, alice);
    await put(again.body, Buffer.from('second'));
    assert.equal((await finish('files/notes.txt', again.body.upload, alice)).status, 200);
    assert.deepEqual(
      told.filter((e) => e.kind.startsWith('file.')).map((e) => e.kind),
      ['file.written'],
    );
    assert.equal((await keys()).length, before.length);
    const read = await fetch((await s.request('/files/notes.txt/@link', {}, { token: alice })).body.url);
    assert.equal(await read.text(), 'second');
  });

  test('a presigned download shows inline only types no browser runs script in; others are saved', async () => {
    // The bucket sends no sandbox (http/file-download.ts does): an XSLT sheet or an XHTML page
    // shown from its origin would run its script there (the store takes 64 bytes at most).
    const XSL = '<x:stylesheet xmlns:x="http://www.w3.org/1999/XSL/Transform"/>';
    const shown = async (name: string, mime: string, bytes: Buffer) => {
      const asked = await ask(`files/${name}`, { size: bytes.length, mime }, alice);
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      assert.equal(await put(asked.body, bytes), 200);
      assert.equal((await finish(`files/${name}`, asked.body.upload, alice)).status, 200);
      const link = await s.request(`/files/${name}/@link`, undefined, { token: alice, method: 'GET' });
      const disposition = new URL(link.body.url).searchParams.get('response-content-disposition') ?? '';
      return disposition.split(';')[0];
    };
    assert.equal(await shown('sheet.xsl', 'text/xsl', Buffer.from(XSL)), 'attachment');
    assert.equal(await shown('page.xht', 'application/xhtml+xml', Buffer.from(XSL)), 'attachment');
    assert.equal(await shown('data.json', 'application/json', Buffer.from('{}')), 'attachment');
    assert.equal(await shown('pixel.png', 'image/png', PNG), 'inline');
    assert.equal(await shown('plain.txt', 'text/plain', Buffer.from('words')), 'inline');
  });

  test('without permission: anonymous, another user on your file, another user finishing yours', async () => {
    const before = await keys();
    const anonymous = await ask('files/a.txt', { size: 1 });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'not_signed_in');

    const asked = await ask('files/mine.txt', { size: 3, mime: 'text/plain' }, alice);
    await put(asked.body, Buffer.from('abc'));
    assert.equal((await finish('files/mine.txt', asked.body.upload, alice)).status, 200);
    const afterMine = await keys();
    // Bob may read alice's file but not write it.
    const overwrite = await ask('files/mine.txt', { size: 3 }, bob);
    assert.equal(overwrite.status, 403);
    assert.equal(overwrite.body.code, 'not_allowed');

    // A forged finish: bob presents alice's token (for her path, or for one of his own).
    const hers = await ask('files/hers.txt', { size: 3, mime: 'text/plain' }, alice);
    await put(hers.body, Buffer.from('xyz'));
    for (const path of ['files/hers.txt', 'files/his.txt']) {
      const forged = await finish(path, hers.body.upload, bob);
      assert.equal(forged.status, 404, path);
      assert.equal(forged.body.code, 'upload_not_found');
    }
    // Alice at another path than she asked for: the same.
    assert.equal((await finish('files/elsewhere.txt', hers.body.upload, alice)).body.code, 'upload_not_found');
    assert.equal((await s.request('/files/his.txt/@getItem', {}, { token: bob })).status, 404);
    // Her token still works for her.
    assert.equal((await finish('files/hers.txt', hers.body.upload, alice)).status, 200);
    assert.equal((await keys()).length, afterMine.length + 1);
    assert.equal(afterMine.length, before.length + 1);
  });

  test('past the limits: announced too large, a bad type, a store without direct transfers', async () => {
    const before = await keys();
    const large = await ask('files/big.bin', { size: 65 }, alice);
    assert.equal(large.status, 413);
    assert.equal(large.body.code, 'storage_limit');
    const badType = await ask('files/x.txt', { size: 1, mime: 'text/plain\r\nx-evil: 1' }, alice);
    assert.equal(badType.status, 422);
    assert.deepEqual(badType.body.invalid, [['mime', 'invalid']]);
    const badSize = await ask('files/x.txt', { size: -1 }, alice);
    assert.equal(badSize.status, 422);
    assert.equal((await finish('files/x.txt', 'not-a-token', alice)).status, 422);
    // The default store `data`-less test server has only these two; `brief` takes no downloads.
    const noDownloads = await s.request('/brief/whatever/@link', {}, { token: alice });
    assert.equal(noDownloads.status, 404);
    assert.equal(noDownloads.body.code, 'direct_not_enabled');
    assert.deepEqual(await keys(), before);
  });

  test('the object differs from what was announced: refused, removed, the token spent', async () => {
    const before = await keys();
    // More bytes than announced (AWS refuses the PUT by its signed length; s3rver takes it).
    const longer = await ask('files/long.txt', { size: 3, mime: 'text/plain' }, alice);
    assert.equal(await put(longer.body, Buffer.from('abcdef')), 200);
    const refused = await finish('files/long.txt', longer.body.upload, alice);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'upload_mismatch');
    assert.deepEqual(refused.body.invalid, [['size', 'mismatch']]);
    assert.equal((await finish('files/long.txt', longer.body.upload, alice)).body.code, 'upload_used');

    // Another Content-Type than signed.
    const typed = await ask('files/t.txt', { size: 3, mime: 'text/plain' }, alice);
    await put(typed.body, Buffer.from('abc'), 'text/html');
    const wrongType = await finish('files/t.txt', typed.body.upload, alice);
    assert.equal(wrongType.body.code, 'upload_mismatch');
    assert.deepEqual(wrongType.body.invalid, [['mime', 'mismatch']]);

    // The announced type, but bytes that are not of it (Roost sniffs them as the store does).
    const fake = await ask('files/fake.png', { size: 4, mime: 'image/png' }, alice);
    await put(fake.body, Buffer.from('%PDF'));
    const notPng = await finish('files/fake.png', fake.body.upload, alice);
    assert.equal(notPng.body.code, 'upload_mismatch');
    assert.deepEqual(notPng.body.invalid, [['mime', 'mismatch']]);

    // A hook refuses the file when it is recorded: the blob goes too.
    const program = await ask('files/tool.exe', { size: 2 }, alice);
    await put(program.body, Buffer.from('MZ'));
    const hooked = await finish('files/tool.exe', program.body.upload, alice);
    assert.equal(hooked.body.code, 'no_programs');

    for (const path of ['long.txt', 't.txt', 'fake.png', 'tool.exe'])
      assert.equal((await s.request(`/files/${path}/@getItem`, {}, { token: alice })).status, 404, path);
    assert.deepEqual(await keys(), before);
  });

  test('finished twice, finished before the bytes, and the URL used again after the finish', async () => {
    const before = await keys();
    const asked = await ask('files/twice.txt', { size: 2, mime: 'text/plain' }, alice);
    const early = await finish('files/twice.txt', asked.body.upload, alice);
    assert.equal(early.status, 409);
    assert.equal(early.body.code, 'upload_missing');
    await put(asked.body, Buffer.from('hi'));
    assert.equal((await finish('files/twice.txt', asked.body.upload, alice)).status, 200);
    const second = await finish('files/twice.txt', asked.body.upload, alice);
    assert.equal(second.status, 409);
    assert.equal(second.body.code, 'upload_used');
    // Two finishes at once: one records the file, the other is refused.
    const raced = await ask('files/raced.txt', { size: 2, mime: 'text/plain' }, alice);
    await put(raced.body, Buffer.from('ok'));
    const both = await Promise.all([1, 2].map(() => finish('files/raced.txt', raced.body.upload, alice)));
    assert.deepEqual(both.map((r) => r.body.code ?? r.status).sort(), [200, 'upload_used']);
    // The URL is still S3's to take until it expires: what it puts is a staging object, never the
    // file's blob, and no finish records it; the sweep removes it once the URL expired.
    assert.equal(await put(asked.body, Buffer.from('zz')), 200);
    assert.equal((await finish('files/twice.txt', asked.body.upload, alice)).body.code, 'upload_used');
    const read = await fetch((await s.request('/files/twice.txt/@link', {}, { token: alice })).body.url);
    assert.equal(await read.text(), 'hi');
    assert.equal((await staged()).length, 1);
    const sweep = () => s.roost.fileStores.get('files')?.sweepDirect(programCaller('test').principal);
    assert.equal(await sweep(), 0, 'a URL still valid keeps its object');
    ahead = 6 * 60_000;
    try {
      assert.equal(await sweep(), 1);
    } finally {
      ahead = 0;
    }
    assert.deepEqual(await staged(), []);
    assert.equal((await keys()).length, before.length + 2);
  });

  test('after its time: S3 refuses the URL (its check), Roost refuses the token (its own)', async () => {
    const before = await keys();
    // S3's: a URL of one second, used after two.
    const brief = await ask('brief/late.txt', { size: 4, mime: 'text/plain' }, alice);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    assert.equal(await put(brief.body, Buffer.from('late')), 403);
    assert.equal((await finish('brief/late.txt', brief.body.upload, alice)).body.code, 'upload_expired');

    // Roost's: the bytes went up in time for S3, the finish came after the token's time.
    const asked = await ask('files/slow.txt', { size: 4, mime: 'text/plain' }, alice);
    assert.equal(await put(asked.body, Buffer.from('slow')), 200);
    ahead = 61_000;
    let expired: Awaited<ReturnType<typeof finish>>;
    try {
      expired = await finish('files/slow.txt', asked.body.upload, alice);
    } finally {
      ahead = 0;
    }
    assert.equal(expired.status, 409);
    assert.equal(expired.body.code, 'upload_expired');
    assert.equal((await finish('files/slow.txt', asked.body.upload, alice)).body.code, 'upload_expired');
    assert.equal((await s.request('/files/slow.txt/@getItem', {}, { token: alice })).status, 404);
    assert.deepEqual(await keys(), before);
  });

  test('an unfinished upload is swept by the job after its expiry, its token a day later', async () => {
    const before = await keys();
    const asked = await ask('files/left.txt', { size: 4, mime: 'text/plain' }, alice);
    await put(asked.body, Buffer.from('left'));
    const sweep = () => s.roost.fileStores.get('files')?.sweepDirect(programCaller('test').principal);
    assert.equal(await sweep(), 0);
    ahead = 6 * 60_000;
    try {
      // The scheduled job (services.ts) sweeps, run now as the jobs page runs it.
      const job = 'roost.direct-upload-sweep';
      await s.roost.jobCatalog.runNow(programCaller('test').principal, job);
      for (let i = 0; i < 200 && (await staged()).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await staged(), []);
      assert.equal((await finish('files/left.txt', asked.body.upload, alice)).body.code, 'upload_expired');
      ahead = 25 * 3600_000;
      await sweep();
      assert.equal((await finish('files/left.txt', asked.body.upload, alice)).body.code, 'upload_not_found');
    } finally {
      ahead = 0;
    }
    assert.deepEqual(await keys(), before);
    // Only administrators (the job) sweep.
    await assert.rejects(async () => s.roost.fileStores.get('files')?.sweepDirect(ANONYMOUS), /Sign in first/);
  });
});
