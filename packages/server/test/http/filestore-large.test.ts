import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { startServer } from '../helpers/test-server.js';
import { generatedBody, rawRequest } from '../helpers/file-requests.js';

const SIZE = 100 * 1024 * 1024;
/**
 * The server and the uploading client run in this process: their memory may grow this much
 * while 100 MB pass through, below the file's size (a body held whole would pass it). Node 22
 * and later buffer more per stream (a larger default highWaterMark) and, above all, keep a
 * larger young generation, where the upload's short-lived chunks wait for their scavenge: alone
 * on this machine Node 20 grew 4 MiB and Node 24 66 MiB; Node 24 with
 * `--max-semi-space-size=8` grew 47 MiB and with `=1` 18 MiB. Garbage not yet collected, then,
 * not memory held; CI's 84-86 MiB were the same with other tests running beside. Hence Node
 * 22+'s own bound.
 */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const RSS_GROWTH_LIMIT = (NODE_MAJOR >= 22 ? 96 : 80) * 1024 * 1024;

test('file store: a 100 MB upload is streamed (memory stays flat) and downloads whole', async () => {
  const s = await startServer();
  try {
    const token = await s.createUser('alice');
    const expected = createHash('sha256');
    for await (const chunk of generatedBody(SIZE)) expected.update(chunk as Buffer);
    const hash = expected.digest('base64url');

    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    const started = Date.now();
    const res = await rawRequest(s.url, '/files/big.bin/@write', {
      method: 'PUT',
      headers: { 'x-auth-token': token, 'content-type': 'application/octet-stream', 'content-length': String(SIZE) },
      body: generatedBody(SIZE),
    });
    clearInterval(sampler);
    const seconds = (Date.now() - started) / 1000;
    assert.equal(res.status, 200, res.text);
    const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
    console.log(
      `100 MB upload: ${seconds.toFixed(1)} s, RSS before ${mb(baseline)}, peak ${mb(peak)}, growth ` +
        `${mb(peak - baseline)}`,
    );
    assert.ok(peak - baseline < RSS_GROWTH_LIMIT, `RSS grew by ${mb(peak - baseline)}`);

    const item = await s.request('/files/big.bin/@getItem', {}, { token });
    assert.equal(item.body.size, SIZE);

    // Download, hashing as it streams.
    const url = new URL(s.url);
    const got = await new Promise<{ etag: string; size: number; hash: string }>((resolve, reject) => {
      httpRequest(
        { host: url.hostname, port: url.port, path: '/files/big.bin', headers: { 'x-auth-token': token } },
        (r) => {
          const h = createHash('sha256');
          let size = 0;
          r.on('data', (c: Buffer) => {
            size += c.length;
            h.update(c);
          });
          r.on('end', () => resolve({ etag: String(r.headers.etag), size, hash: h.digest('base64url') }));
          r.on('error', reject);
        },
      )
        .on('error', reject)
        .end();
    });
    assert.deepEqual(got, { etag: `"${hash}"`, size: SIZE, hash });
  } finally {
    await s.close();
  }
});
