// The baseline of the file store suite: @fastify/static serving the same files from disk, with
// JSON directory listings (`extended`: each entry with its size and times, as Roost's list gives;
// and under /names/ the bare names).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import fastifyStatic from '@fastify/static';
import { bigFile, DIRECTORY_ENTRIES, entryBody, entryName } from './filestore-fixture.js';
import { tempDir } from './server-lifecycle.js';

const root = tempDir('roost-bench-static-');
writeFileSync(join(root, 'big.bin'), bigFile);
mkdirSync(join(root, 'many'));
for (let i = 0; i < DIRECTORY_ENTRIES; i++) writeFileSync(join(root, 'many', entryName(i)), entryBody(i));

const app = Fastify({ logger: false });
await app.register(fastifyStatic, {
  root,
  index: false,
  list: { format: 'json', names: ['/'], jsonFormat: 'extended' },
});
// The same files under /names/: listings of the bare names (a readdir, no stat per entry).
await app.register(fastifyStatic, {
  root,
  prefix: '/names/',
  decorateReply: false,
  index: false,
  list: { format: 'json', names: ['/'], jsonFormat: 'names' },
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url });
