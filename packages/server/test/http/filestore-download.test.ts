import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, useServer } from '../helpers/test-server.js';

describe('file store: downloads', () => {
  let token: string;
  const body = Buffer.from('0123456789abcdefghij');
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${s.url}${path}`, { method, headers: { 'x-auth-token': token, ...headers } });

  const s = useServer();
  before(async () => {
    token = await s.createUser('alice');
    await fetch(`${s.url}/files/data.txt/@write`, { method: 'PUT', body, headers: { 'x-auth-token': token } });
    await s.request('/files/@newItem', { name: 'zero.bin', contents: '' }, { token });
  });

  test('a plain GET streams the file with type, length, ETag and Last-Modified', async () => {
    for (const path of ['/files/data.txt', '/files/api/data.txt']) {
      const res = await get(path);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), body.toString());
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(res.headers.get('content-length'), '20');
      assert.match(res.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{43}"$/);
      assert.match(res.headers.get('last-modified') ?? '', /GMT$/);
      assert.equal(res.headers.get('accept-ranges'), 'bytes');
      assert.equal(res.headers.get('cache-control'), 'private, no-cache');
      assert.match(res.headers.get('content-security-policy') ?? '', /sandbox/);
    }
    const read = await s.request('/files/data.txt/@read', {}, { token });
    assert.equal(read.body, body.toString());
    const head = await get('/files/data.txt', {}, 'HEAD');
    assert.deepEqual([head.status, head.headers.get('content-length'), await head.text()], [200, '20', '']);
  });

  test('conditional requests answer 304', async () => {
    const first = await get('/files/data.txt');
    const etag = first.headers.get('etag') ?? '';
    const lastModified = first.headers.get('last-modified') ?? '';
    const byEtag = await get('/files/data.txt', { 'if-none-match': etag });
    assert.deepEqual([byEtag.status, await byEtag.text()], [304, '']);
    assert.equal((await get('/files/data.txt', { 'if-none-match': `"other", W/${etag}` })).status, 304);
    assert.equal((await get('/files/data.txt', { 'if-none-match': '"other"' })).status, 200);
    assert.equal((await get('/files/data.txt', { 'if-modified-since': lastModified })).status, 304);
    assert.equal((await get('/files/data.txt', { 'if-modified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' })).status, 200);
    // If-None-Match wins over If-Modified-Since.
    assert.equal(
      (await get('/files/data.txt', { 'if-none-match': '"other"', 'if-modified-since': lastModified })).status,
      200,
    );
    // New contents, new ETag.
    await s.request('/files/data.txt/@setItem', { contents: 'changed' }, { token });
    assert.equal((await get('/files/data.txt', { 'if-none-match': etag })).status, 200);
    await fetch(`${s.url}/files/data.txt/@write`, { method: 'PUT', body, headers: { 'x-auth-token': token } });
    assert.equal(
      (await get('/files/data.txt', { 'if-none-match': etag })).status,
      304,
      'the same contents have the same ETag',
    );
  });

  test('range requests answer 206, or 416 past the end', async () => {
    const cases: [string, string, string][] = [
      ['bytes=0-3', '0123', 'bytes 0-3/20'],
      ['bytes=10-', 'abcdefghij', 'bytes 10-19/20'],
      ['bytes=-5', 'fghij', 'bytes 15-19/20'],
      ['bytes=18-100', 'ij', 'bytes 18-19/20'],
    ];
    for (const [range, text, contentRange] of cases) {
      const res = await get('/files/data.txt', { range });
      assert.equal(res.status, 206, range);
      assert.equal(await res.text(), text, range);
      assert.equal(res.headers.get('content-range'), contentRange);
      assert.equal(res.headers.get('content-length'), String(text.length));
    }
    const past = await get('/files/data.txt', { range: 'bytes=20-30' });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), 'bytes */20');
    assert.equal((await past.json()).code, 'range_not_satisfiable');
    // Several ranges, other units and a stale If-Range get the whole file.
    for (const headers of <Record<string, string>[]>[
      { range: 'bytes=0-1,4-5' },
      { range: 'items=0-1' },
      { range: 'bytes=0-1', 'if-range': '"stale"' },
    ]) {
      const res = await get('/files/data.txt', headers);
      assert.deepEqual([res.status, (await res.text()).length], [200, 20], JSON.stringify(headers));
    }
    const etag = (await get('/files/data.txt')).headers.get('etag') ?? '';
    assert.equal((await get('/files/data.txt', { range: 'bytes=0-1', 'if-range': etag })).status, 206);
  });

  test('a file of 0 bytes downloads as an empty body', async () => {
    const res = await get('/files/zero.bin');
    assert.deepEqual([res.status, res.headers.get('content-length'), await res.text()], [200, '0', '']);
    assert.equal((await get('/files/zero.bin', { range: 'bytes=0-0' })).status, 416);
    const up = await fetch(`${s.url}/files/empty-put.txt/@write`, {
      method: 'PUT',
      headers: { 'x-auth-token': token },
    });
    assert.equal(up.status, 200);
    assert.equal((await s.request('/files/empty-put.txt/@getItem', {}, { token })).body.size, 0);
  });

  test('the cache slot is sent as Cache-Control only when it is one', async () => {
    await s.request('/files/@newItem', { name: 'cached.txt', contents: 'c', cache: 'public,max-age=600' }, { token });
    assert.equal((await get('/files/cached.txt')).headers.get('cache-control'), 'public, max-age=600');
    await s.request('/files/cached.txt/@setItem', { header: 'origin=local' }, { token });
    assert.equal((await get('/files/cached.txt')).headers.get('cache-control'), 'private, no-cache');
    assert.equal((await s.request('/files/cached.txt/@getItem', {}, { token })).body.header, 'origin=local');
  });

  test('a directory does not download; a missing file is 404', async () => {
    await s.request('/files/@newItem', { name: 'dir', type: 'd' }, { token });
    const dir = await get('/files/dir');
    assert.deepEqual([dir.status, (await dir.json()).code], [422, 'not_a_file']);
    const missing = await get('/files/nope.txt');
    assert.deepEqual([missing.status, (await missing.json()).code], [404, 'not_found']);
    const post = await s.request('/files/data.txt', {}, { token });
    assert.equal(post.status, 404);
  });

  test('with CORS origins, a browser app may send range and conditional headers and read the ETag', async () => {
    const c = await startServer({ corsOrigins: ['https://app.example'] });
    try {
      const t = await c.createUser('dora');
      await c.request('/files/f.txt/@write', undefined, { token: t, method: 'PUT', raw: 'cors' });
      const preflight = await fetch(`${c.url}/files/f.txt`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'range, x-auth-token',
        },
      });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /range/);
      assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /PUT/);
      const res = await fetch(`${c.url}/files/f.txt`, {
        headers: { origin: 'https://app.example', 'x-auth-token': t, range: 'bytes=0-1' },
      });
      assert.equal(res.status, 206);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /etag/);
    } finally {
      await c.close();
    }
  });

  test('a public store serves files to anonymous callers', async () => {
    const p = await startServer({ fileStores: { pub: { read: 'sys:everyone' } } });
    try {
      const t = await p.createUser('carol');
      await p.request('/pub/hello.txt/@write', undefined, { token: t, method: 'PUT', raw: 'hi' });
      const res = await fetch(`${p.url}/pub/hello.txt`);
      assert.deepEqual([res.status, await res.text()], [200, 'hi']);
      assert.equal((await p.request('/pub/@list')).body.items.length, 1);
      const write = await p.request('/pub/hello.txt/@write', undefined, { method: 'PUT', raw: 'x' });
      assert.equal(write.status, 401);
    } finally {
      await p.close();
    }
  });
});
