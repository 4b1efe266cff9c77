// The types of negotiator 1.x, for every project that compiles this file (the client's and forms' tests too).
/// <reference path="./negotiator.d.ts" />
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import Negotiator from 'negotiator';

/**
 * Where a page loads the connector: `<script type="module">import { users } from '/static/roost-client.js'</script>`.
 */
const CLIENT_BUNDLE_PATH = '/static/roost-client.js';

/** The codings served, in the order preferred when a request ranks them alike: brotli is the smallest. */
const CODINGS = ['br', 'gzip', 'identity'] as const;
type Coding = (typeof CODINGS)[number];

interface Representation {
  body: Buffer;
  /**
   * The hash of the bytes sent: strong, so one per coding (RFC 9110, 8.8.3), and a cached gzip
   * body does not validate a brotli one.
   */
  etag: string;
}

type ClientBundle = Record<Coding, Representation>;

let building: Promise<ClientBundle> | undefined;

/**
 * The browser bundle (ESM, minified) of `@roost/client`'s core, built by esbuild from the
 * package's sources at the first request and kept in memory for the life of the process, with
 * its gzip and brotli encodings, compressed once there (docs/decisions.md, "Browser bundle").
 * Roost runs its sources through tsx without a build step, and tsx brings esbuild along, so
 * building here adds no tool and cannot serve a bundle older than the sources (docs/decisions.md).
 */
function clientBundle(): Promise<ClientBundle> {
  building ??= build();
  // A failed build (esbuild missing, say) is tried again by the next request.
  building.catch(() => {
    building = undefined;
  });
  return building;
}

async function build(): Promise<ClientBundle> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(import.meta.resolve('@roost/client'))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // Private class fields and top-level await: every current browser.
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    banner: { js: '/* @roost/client: the Roost connector (ESM). Source: packages/client. */' },
  });
  const plain = Buffer.from(result.outputFiles[0]?.text ?? '');
  const [gzipped, brotli] = await Promise.all([
    promisify(gzip)(plain, { level: zlib.Z_BEST_COMPRESSION }),
    promisify(brotliCompress)(plain, {
      params: { [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length },
    }),
  ]);
  const representation = (body: Buffer): Representation => ({
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
  });
  return { identity: representation(plain), gzip: representation(gzipped), br: representation(brotli) };
}

/**
 * `GET /static/roost-client.js`, in the coding the request's Accept-Encoding ranks first (negotiator
 * reads its q-values, `*` and `identity`), cached by browsers for five minutes and then revalidated
 * by its ETag.
 */
export async function registerClientBundle(app: FastifyInstance): Promise<void> {
  app.get(CLIENT_BUNDLE_PATH, { config: { readOnly: true } }, async (request, reply) => {
    const bundle = await clientBundle();
    // A request that refuses every coding, identity too, still gets the plain module: RFC 9110,
    // 12.5.3 leaves that case to the server, and the module helps more than a 406 would.
    const coding = (new Negotiator(request).encoding(CODINGS, { preferred: CODINGS }) ?? 'identity') as Coding;
    const { body, etag } = bundle[coding];
    // Added to, not replaced: with corsOrigins, src/http/cors.ts has already put Origin there.
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, accept-encoding` : 'accept-encoding');
    reply.header('etag', etag).header('cache-control', 'public, max-age=300');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    if (coding !== 'identity') reply.header('content-encoding', coding);
    return reply.type('text/javascript; charset=utf-8').send(body);
  });
}
