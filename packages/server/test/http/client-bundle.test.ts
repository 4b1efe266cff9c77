import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { useServer } from '../helpers/test-server.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * GET with node:http, not fetch: fetch decodes a compressed body itself, and these tests check the
 * bytes on the wire.
 */
function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** `/static/roost-client.js` (packages/server/src/http/client-bundle.ts), compressed as the request allows. */
describe('the served connector bundle', () => {
  const s = useServer();
  const bundleUrl = () => `${s.url}/static/roost-client.js`;

  async function plain(): Promise<Buffer> {
    const res = await rawGet(bundleUrl(), {});
    assert.equal(res.status, 200);
    return res.body;
  }

  test('without Accept-Encoding: the plain module, and Vary names Accept-Encoding', async () => {
    const res = await rawGet(bundleUrl(), {});
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.match(String(res.headers.vary), /accept-encoding/i);
    assert.match(String(res.headers['content-type']), /^text\/javascript/);
    assert.match(res.body.toString('utf8'), /@roost\/client/);
    assert.equal(Number(res.headers['content-length']), res.body.length);
  });

  for (const [acceptEncoding, encoding, decode] of [
    ['gzip', 'gzip', gunzipSync],
    ['GZIP;q=0.8', 'gzip', gunzipSync],
    ['br', 'br', brotliDecompressSync],
    // What browsers send: brotli, the smaller, wins a tie.
    ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
    ['br;q=0.5, gzip', 'gzip', gunzipSync],
    ['br;q=0, *', 'gzip', gunzipSync],
  ] as const) {
    test(`Accept-Encoding: ${acceptEncoding} gets ${encoding}, which decodes to the plain module`, async () => {
      const expected = await plain();
      const res = await rawGet(bundleUrl(), { 'accept-encoding': acceptEncoding });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], encoding);
      assert.match(String(res.headers.vary), /accept-encoding/i);
      assert.match(String(res.headers['content-type']), /^text\/javascript/);
      assert.equal(Number(res.headers['content-length']), res.body.length);
      assert.ok(res.body.length < expected.length / 2, `${res.body.length} bytes of ${expected.length}`);
      assert.ok(decode(res.body).equals(expected));
    });
  }

  for (const acceptEncoding of ['identity', 'deflate', 'gzip;q=0, br;q=0']) {
    test(`Accept-Encoding: ${acceptEncoding} gets the plain module`, async () => {
      const res = await rawGet(bundleUrl(), { 'accept-encoding': acceptEncoding });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], undefined);
      assert.ok(res.body.equals(await plain()));
    });
  }

  test('each encoding has its own ETag, and a matching If-None-Match answers 304 with Vary', async () => {
    const tags = new Set<string>();
    for (const acceptEncoding of ['identity', 'gzip', 'br']) {
      const first = await rawGet(bundleUrl(), { 'accept-encoding': acceptEncoding });
      const etag = String(first.headers.etag);
      tags.add(etag);
      const again = await rawGet(bundleUrl(), { 'accept-encoding': acceptEncoding, 'if-none-match': etag });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers.etag, etag);
      assert.match(String(again.headers.vary), /accept-encoding/i);
    }
    assert.equal(tags.size, 3);
    // A cached gzip body is not the brotli one: its tag does not validate the other encoding.
    const gzipTag = String((await rawGet(bundleUrl(), { 'accept-encoding': 'gzip' })).headers.etag);
    const other = await rawGet(bundleUrl(), { 'accept-encoding': 'br', 'if-none-match': gzipTag });
    assert.equal(other.status, 200);
    assert.equal(other.headers['content-encoding'], 'br');
  });
});

describe('the served connector bundle with CORS origins', () => {
  const s = useServer({ corsOrigins: ['https://app.example'] });

  test('Vary keeps Origin beside Accept-Encoding', async () => {
    const res = await rawGet(`${s.url}/static/roost-client.js`, {
      origin: 'https://app.example',
      'accept-encoding': 'gzip',
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example');
    assert.deepEqual(
      String(res.headers.vary)
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .sort(),
      ['accept-encoding', 'origin'],
    );
  });
});
