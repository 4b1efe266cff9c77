import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/**
 * Where a page loads the connector: `<script type="module">import { users } from '/static/roost-client.js'</script>`.
 */
const CLIENT_BUNDLE_PATH = '/static/roost-client.js';

interface ClientBundle {
  code: string;
  etag: string;
}

let building: Promise<ClientBundle> | undefined;

/**
 * The browser bundle (ESM, minified) of `@roost/client`'s core, built by esbuild from the
 * package's sources at the first request and kept in memory for the life of the process.
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
  const code = result.outputFiles[0]?.text ?? '';
  return { code, etag: `"${createHash('sha256').update(code).digest('base64url')}"` };
}

/** `GET /static/roost-client.js`, cached by browsers for five minutes and then revalidated by its ETag. */
export async function registerClientBundle(app: FastifyInstance): Promise<void> {
  app.get(CLIENT_BUNDLE_PATH, async (request, reply) => {
    const { code, etag } = await clientBundle();
    reply.header('etag', etag).header('cache-control', 'public, max-age=300');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(code);
  });
}
