import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { createLocalBlobStore } from '../../src/storage/local-blob-store.js';
import { useServer, type TestServer } from '../helpers/test-server.js';
import { generatedBody, rawRequest } from '../helpers/file-requests.js';

/**
 * Every blob of the store `small`, and the temporary files of uploads under way (those exist
 * on local disk only: an S3 upload under way is invisible until it completes).
 */
async function blobFiles(s: TestServer): Promise<{ blobs: string[]; temps: string[] }> {
  const blobs: string[] = [];
  for await (const blob of s.roost.blobs.forStore('small').list()) blobs.push(blob.id);
  const local = (s.roost.config.fileStores.small?.blobs ?? s.roost.config.blobs).kind === 'local';
  return { blobs, temps: local ? await readdir(join(s.roost.config.dataDir, 'blobs', 'tmp')) : [] };
}

describe('file store: hostile paths', () => {
  let token: string;
  const s = useServer();
  before(async () => {
    token = await s.createUser('alice');
    await s.request('/files/@newItem', { name: 'safe', type: 'd' }, { token });
    await s.request('/files/safe/@newItem', { name: 'ok.txt', contents: 'ok' }, { token });
  });

  test('dot segments, encodings, backslashes, absolute paths, NUL, controls, @ names: 422 invalid_path', async () => {
    const hostile = [
      '/files/../etc/passwd',
      '/files/safe/../../etc/passwd/@getItem',
      '/files/%2e%2e/etc/@getItem',
      '/files/safe/%2E%2E/@list',
      '/files/%252e%252e/%252e%252e/etc/passwd',
      '/files/safe/.%2e/@read',
      '/files/./safe/@list',
      '/files/safe%2F..%2F..%2Fetc/@getItem',
      '/files/safe/..%5C..%5Cwindows/@getItem',
      '/files/safe\\..\\x/@getItem',
      '/files//etc/passwd/@getItem',
      '/files/api//etc/passwd',
      '/files/safe/a%00b/@getItem',
      '/files/safe/a%0Ab/@newItem',
      '/files/safe/%40list/@getItem',
      `/files/safe/${'n'.repeat(256)}/@getItem`,
      `/files/${'d/'.repeat(70)}x/@getItem`,
      `/files/${`${'x'.repeat(200)}/`.repeat(6)}y/@getItem`,
    ];
    for (const path of hostile) {
      const res = await rawRequest(s.url, path, { headers: { 'x-auth-token': token } });
      assert.equal(res.status, 422, `${path.slice(0, 80)} → ${res.status} ${res.text.slice(0, 200)}`);
      assert.equal(res.body.code, 'invalid_path', path);
      assert.equal(res.body.invalid[0][0], 'path');
      assert.doesNotMatch(res.text, /root:|\/work\/|node_modules/);
    }
  });

  test('an encoded slash separates segments, as generated clients send a path (encodeURIComponent)', async () => {
    const headers = { 'x-auth-token': token };
    const entry = await rawRequest(s.url, `/files/${encodeURIComponent('safe/ok.txt')}/@getItem`, { headers });
    assert.deepEqual([entry.status, entry.body.name, entry.body.type], [200, 'ok.txt', 'f']);
    const download = await rawRequest(s.url, '/files/api/safe%2Fok.txt', { headers });
    assert.deepEqual([download.status, download.text], [200, 'ok']);
    const made = await rawRequest(s.url, '/files/safe%2F/@newItem', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'made.txt', contents: 'made' }),
    });
    assert.deepEqual([made.status, made.body.success], [200, ['made.txt']], 'the directory form, `safe/` encoded');
    // After the split, every segment is checked as any other: the store's rules still hold.
    const hostile = [
      '/files/safe%2F..%2F..%2Fetc%2Fpasswd/@getItem',
      '/files/%2Fetc%2Fpasswd/@getItem',
      '/files/safe%2F%2Fok.txt/@getItem',
      '/files/safe%2F.%2Fok.txt',
      '/files/api%2Fsafe/@list',
      '/files/safe%2F%40list',
      '/files/safe%2F%2540x/@getItem',
      '/files/safe%2F%5C..%5Cx/@getItem',
      '/files/%2F/@list',
    ];
    for (const path of hostile) {
      const res = await rawRequest(s.url, path, { headers });
      assert.deepEqual([res.status, res.body.code, res.body.invalid?.[0]?.[0]], [422, 'invalid_path', 'path'], path);
    }
  });

  test('a URL that is not UTF-8 is a malformed request', async () => {
    const res = await rawRequest(s.url, '/files/safe/%ff%fe/@getItem', { headers: { 'x-auth-token': token } });
    assert.deepEqual([res.status, res.body.result, res.body.code], [400, false, 'bad_request']);
  });

  test('names in bodies are checked the same way', async () => {
    for (const name of ['..', '.', 'a/b', 'a\\b', '@getItem', 'a\u0001b', ' padded', 'x'.repeat(256), '%2e%2e']) {
      const res = await s.request('/files/safe/@newItem', { name, contents: 'x' }, { token });
      assert.equal(res.status, 422, JSON.stringify(name));
      assert.equal(res.body.code, 'invalid_path');
      assert.equal(res.body.invalid[0][0], 'name');
    }
    const nul = await s.request('/files/safe/@newItem', { name: 'a\u0000b' }, { token });
    assert.deepEqual([nul.status, nul.body.code], [400, 'nul_character']);
    const api = await s.request('/files/@newItem', { name: 'api', type: 'd' }, { token });
    assert.deepEqual([api.status, api.body.invalid], [422, [['name', 'reserved']]]);
    for (const newpath of ['../x', '/safe/../../x', 'safe//x', '\\x', 'safe/%2e%2e']) {
      const res = await s.request('/files/safe/ok.txt/@move', { newpath }, { token });
      assert.deepEqual([res.status, res.body.code, res.body.invalid[0][0]], [422, 'invalid_path', 'newpath'], newpath);
    }
    assert.equal((await s.request('/files/safe/ok.txt/@getItem', {}, { token })).status, 200, 'nothing moved');
  });

  test('wrong-typed and missing fields are 422 with the field named', async () => {
    const cases: [string, unknown, string][] = [
      ['/files/safe/@newItem', { name: 5 }, 'name'],
      ['/files/safe/@newItem', { name: 'x', contents: { a: 1 } }, 'contents'],
      ['/files/safe/@newItem', { name: 'x', decode: 'maybe' }, 'decode'],
      ['/files/safe/@list', { size: 'ten' }, 'size'],
      ['/files/safe/@list', { order: 'up' }, 'order'],
      ['/files/safe/ok.txt/@move', {}, 'newpath'],
      ['/files/safe/ok.txt/@removeItem', { recursive: 'perhaps' }, 'recursive'],
      ['/files/safe/ok.txt/@setItem', { cache: 'a\r\nSet-Cookie: x=1' }, 'cache'],
    ];
    for (const [path, body, field] of cases) {
      const res = await s.request(path, body, { token });
      assert.equal(res.status, 422, `${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.invalid[0][0], field);
    }
    const list = await s.request('/files/safe/@list', [1, 2], { token });
    assert.deepEqual([list.status, list.body.code], [400, 'malformed_body']);
    const xml = await s.request('/files/safe/@list', undefined, {
      token,
      raw: '<a/>',
      headers: { 'content-type': 'application/xml' },
    });
    assert.deepEqual([xml.status, xml.body.code], [415, 'unsupported_media_type']);
  });
});

describe('file store: callers without permission', () => {
  let alice: string;
  let bob: string;
  let admin: string;
  const s = useServer();
  before(async () => {
    alice = await s.createUser('alice');
    bob = await s.createUser('bob');
    admin = await s.adminToken();
    await s.request('/files/@newItem', { name: 'alice', type: 'd' }, { token: alice });
    await s.request('/files/alice/@newItem', { name: 'a.txt', contents: 'secret' }, { token: alice });
  });

  test('anonymous callers are asked to sign in, whether or not the path exists', async () => {
    for (const [path, body] of [
      ['/files/alice/a.txt/@getItem', {}],
      ['/files/nope/@getItem', {}],
      ['/files/alice/a.txt', undefined],
      ['/files/@list', {}],
      ['/files/@newItem', { name: 'x' }],
      ['/files/alice/a.txt/@removeItem', {}],
      ['/files/alice/@getOwner', {}],
    ] as const) {
      const res = await s.request(path, body);
      assert.equal(res.status, 401, path);
      assert.equal(res.body.code, 'not_signed_in');
    }
    const put = await s.request('/files/alice/a.txt/@write', undefined, { method: 'PUT', raw: 'overwritten' });
    assert.equal(put.status, 401);
    assert.equal(
      await (await fetch(`${s.url}/files/alice/a.txt`, { headers: { 'x-auth-token': alice } })).text(),
      'secret',
    );
  });

  test("another user may read but not change, move, remove or take over alice's files", async () => {
    assert.equal((await s.request('/files/alice/a.txt/@getItem', {}, { token: bob })).status, 200);
    for (const [op, body] of [
      ['setItem', { contents: 'x' }],
      ['write', { contents: 'x' }],
      ['move', { newpath: 'b.txt' }],
      ['removeItem', {}],
      ['setOwner', { owner: 'bob' }],
    ] as const) {
      const res = await s.request(`/files/alice/a.txt/@${op}`, body, { token: bob });
      assert.deepEqual([res.status, res.body.code], [403, 'not_allowed'], op);
    }
    const raw = await s.request('/files/alice/a.txt/@write', undefined, { token: bob, method: 'PUT', raw: 'x' });
    assert.equal(raw.status, 403);
    assert.equal((await s.request('/files/alice/@removeItem', { recursive: true }, { token: bob })).status, 403);
    for (const op of ['getPermissions', 'setPermissions']) {
      assert.equal(
        (
          await s.request(
            `/files/@${op}`,
            { permissions: [{ permission: 'read', groups: ['sys:everyone'] }] },
            { token: bob },
          )
        ).status,
        403,
        op,
      );
    }
    // Bob may create next to alice's directory, and owns what he creates.
    assert.equal(
      (await s.request('/files/alice/@newItem', { name: 'bob.txt', contents: 'b' }, { token: bob })).status,
      200,
    );
    assert.equal((await s.request('/files/alice/bob.txt/@write', { contents: 'b2' }, { token: bob })).status, 200);
    // Administrators may do everything.
    assert.equal((await s.request('/files/alice/bob.txt/@removeItem', {}, { token: admin })).status, 200);
  });

  test('a file the caller may not read answers 404, like a missing one', async () => {
    await s.request(
      '/files/@setPermissions',
      {
        permissions: [
          { permission: 'getItem', groups: ['sys:owner', 'admins'], action: 'replace' },
          { permission: 'read', groups: ['sys:owner', 'admins'], action: 'replace' },
        ],
      },
      { token: admin },
    );
    try {
      for (const path of [
        '/files/alice/a.txt/@getItem',
        '/files/alice/a.txt',
        '/files/alice/a.txt/@read',
        '/files/alice/missing.txt/@getItem',
      ]) {
        const res = await s.request(path, path.includes('@') ? {} : undefined, { token: bob });
        assert.deepEqual([res.status, res.body.code], [404, 'not_found'], path);
      }
      const write = await s.request('/files/alice/a.txt/@write', { contents: 'x' }, { token: bob });
      assert.equal(write.status, 404, 'a change to an unreadable file does not reveal it either');
      assert.equal((await s.request('/files/alice/a.txt/@getItem', {}, { token: alice })).status, 200);
    } finally {
      await s.request(
        '/files/@setPermissions',
        {
          permissions: [
            { permission: 'getItem', groups: ['sys:authenticated', 'admins'], action: 'replace' },
            { permission: 'read', groups: ['sys:authenticated', 'admins'], action: 'replace' },
          ],
        },
        { token: admin },
      );
    }
  });

  test('HEAD never runs an operation; PUT only writes', async () => {
    const head = await fetch(`${s.url}/files/alice/a.txt/@removeItem`, {
      method: 'HEAD',
      headers: { 'x-auth-token': alice },
    });
    assert.equal(head.status, 400);
    const put = await s.request('/files/alice/a.txt/@removeItem', undefined, {
      token: alice,
      method: 'PUT',
      raw: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([put.status, put.body.code], [400, 'bad_request']);
    assert.equal((await s.request('/files/alice/a.txt/@getItem', {}, { token: alice })).status, 200);
    const headRead = await fetch(`${s.url}/files/alice/a.txt/@read`, {
      method: 'HEAD',
      headers: { 'x-auth-token': alice },
    });
    assert.deepEqual([headRead.status, headRead.headers.get('content-length')], [200, '6']);
  });

  test('cookie-authenticated writes must come from the same site', async () => {
    const signin = await s.users('signin', { identity: 'alice', password: 'a-good-password' });
    const cookie = (signin.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const cross = await s.request(
      '/files/alice/@newItem',
      { name: 'csrf.txt', contents: 'x' },
      { headers: { cookie, 'sec-fetch-site': 'cross-site' } },
    );
    assert.deepEqual([cross.status, cross.body.code], [403, 'cross_site_request']);
    const crossPut = await s.request('/files/alice/a.txt/@write', undefined, {
      method: 'PUT',
      raw: 'x',
      headers: { cookie, origin: 'https://evil.example' },
    });
    assert.deepEqual([crossPut.status, crossPut.body.code], [403, 'cross_site_request']);
    const read = await s.request('/files/alice/a.txt', undefined, {
      headers: { cookie, 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(read.status, 200, 'reads are not CSRF-checked');
    const same = await s.request(
      '/files/alice/@newItem',
      { name: 'csrf.txt', contents: 'x' },
      { headers: { cookie, 'sec-fetch-site': 'same-origin' } },
    );
    assert.equal(same.status, 200);
  });
});

describe('file store: limits and atomic writes', () => {
  let token: string;
  const s = useServer({ bodyLimit: 4096, fileStores: { small: { maxFileBytes: 1000 } } });
  before(async () => {
    token = await s.createUser('alice');
    await s.request('/small/keep.txt/@write', undefined, { token, method: 'PUT', raw: 'good contents' });
  });

  test('a file over maxFileBytes answers 413 storage_limit and leaves the old contents', async () => {
    const announced = await s.request('/small/keep.txt/@write', undefined, {
      token,
      method: 'PUT',
      raw: 'x'.repeat(1001),
    });
    assert.deepEqual([announced.status, announced.body.code, announced.body.result], [413, 'storage_limit', 0]);
    // Without a Content-Length (chunked), the limit is found while streaming.
    const chunked = await rawRequest(s.url, '/small/keep.txt/@write', {
      method: 'PUT',
      headers: { 'x-auth-token': token, 'transfer-encoding': 'chunked' },
      body: generatedBody(5000, 100),
    });
    assert.deepEqual([chunked.status, chunked.body.code, chunked.body.result], [413, 'storage_limit', 0]);
    const json = await s.request('/small/@newItem', { name: 'big.txt', contents: 'y'.repeat(1500) }, { token });
    assert.deepEqual([json.status, json.body.code, json.body.result], [413, 'storage_limit', 0]);
    const form = new FormData();
    form.append('name', 'big.bin');
    form.append('file', new Blob([Buffer.alloc(3000)]), 'big.bin');
    const multipart = await fetch(`${s.url}/small/@newItem`, {
      method: 'POST',
      body: form,
      headers: { 'x-auth-token': token },
    });
    const multipartBody = (await multipart.json()) as { code: string; result: unknown };
    assert.deepEqual([multipart.status, multipartBody.code, multipartBody.result], [413, 'storage_limit', 0]);
    const huge = await s.request('/small/@list', { pad: 'z'.repeat(5000) }, { token });
    assert.deepEqual([huge.status, huge.body.code], [413, 'body_too_large']);
    const exact = await s.request('/small/exact.bin/@write', undefined, {
      token,
      method: 'PUT',
      raw: 'e'.repeat(1000),
    });
    assert.equal(exact.status, 200);
    assert.equal(
      await (await fetch(`${s.url}/small/keep.txt`, { headers: { 'x-auth-token': token } })).text(),
      'good contents',
    );
    assert.equal((await s.request('/small/big.txt/@getItem', {}, { token })).status, 404);
    const { temps } = await blobFiles(s);
    assert.deepEqual(temps, [], 'no temporary file is left');
  });

  test('an aborted upload leaves the old contents and no temporary file', async () => {
    const before = await blobFiles(s);
    const url = new URL(s.url);
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: '/small/keep.txt/@write',
        method: 'PUT',
        headers: { 'x-auth-token': token, 'content-length': '900' },
      });
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      req.write(Buffer.alloc(300, 1));
      setTimeout(() => req.destroy(), 150);
    });
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(
      await (await fetch(`${s.url}/small/keep.txt`, { headers: { 'x-auth-token': token } })).text(),
      'good contents',
    );
    const afterwards = await blobFiles(s);
    assert.deepEqual(afterwards.temps, []);
    assert.deepEqual(afterwards.blobs.sort(), before.blobs.sort());
  });

  test('replacing contents deletes the old blob; removing a tree deletes its blobs', async () => {
    const start = (await blobFiles(s)).blobs.length;
    await s.request('/small/keep.txt/@write', undefined, { token, method: 'PUT', raw: 'newer' });
    assert.equal((await blobFiles(s)).blobs.length, start);
    await s.request('/small/@newItem', { name: 'tree', type: 'd' }, { token });
    await s.request('/small/tree/a/@write', undefined, { token, method: 'PUT', raw: 'a' });
    await s.request('/small/tree/b/@write', undefined, { token, method: 'PUT', raw: 'b' });
    assert.equal((await blobFiles(s)).blobs.length, start + 2);
    await s.request('/small/tree/@removeItem', { recursive: true }, { token });
    assert.equal((await blobFiles(s)).blobs.length, start);
  });

  test('concurrent writes to one file leave one of them whole and no stray blob', async () => {
    const start = (await blobFiles(s)).blobs.length;
    const bodies = ['1'.repeat(500), '2'.repeat(500), '3'.repeat(500), '4'.repeat(500)];
    await Promise.all(
      bodies.map((raw) => s.request('/small/keep.txt/@write', undefined, { token, method: 'PUT', raw })),
    );
    const text = await (await fetch(`${s.url}/small/keep.txt`, { headers: { 'x-auth-token': token } })).text();
    assert.ok(bodies.includes(text));
    assert.equal((await blobFiles(s)).blobs.length, start);
  });
});

test('file store: temporary files a crash left behind in a local blob store are removed at start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'roost-blobs-'));
  try {
    createLocalBlobStore(dir).close();
    const tmp = join(dir, 'tmp');
    const orphan = join(tmp, 'crashed-upload.part');
    await writeFile(orphan, 'half a file');
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(orphan, hourAgo, hourAgo);
    await writeFile(join(tmp, 'running-upload.part'), 'still being written');
    createLocalBlobStore(dir).close();
    assert.deepEqual(await readdir(tmp), ['running-upload.part']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
