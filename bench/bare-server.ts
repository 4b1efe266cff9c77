// The baselines of a Node HTTP service with Fastify and nothing else: a JSON route (the ceiling
// for a Node JSON service on this machine), and a raw upload streamed to a file, synced and
// renamed into place (what Roost's file store does with a `@write` body, without the rest).
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';
import { tempDir } from './server-lifecycle.js';

const dir = tempDir('roost-bench-bare-');

const app = Fastify({ logger: false });
app.get('/json', async () => ({ result: 1 }));
app.post('/json', async () => ({ result: 1 }));
app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
app.put('/upload', async (request) => {
  const tmp = join(dir, `${randomUUID()}.part`);
  await pipeline(
    request.body as Readable,
    createWriteStream(tmp, { flags: 'wx', flush: true, highWaterMark: 256 * 1024 }),
  );
  await rename(tmp, join(dir, 'uploaded.bin'));
  return { result: 1 };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url });
