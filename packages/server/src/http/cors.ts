import type { FastifyInstance } from 'fastify';

/**
 * CORS for the configured origins only (none by default): credentials allowed, so a browser
 * app on another origin can use the cookie; `x-auth-token` and `content-type` accepted, and
 * the headers of conditional and range downloads; preflight cached for an hour.
 */
/** The headers of the tus protocol a browser client sends, and those it reads. */
const TUS_SENT = 'tus-resumable, upload-length, upload-offset, upload-metadata, upload-checksum, upload-defer-length';
const TUS_EXPOSED =
  'location, tus-resumable, tus-version, tus-extension, tus-max-size, upload-offset, upload-length, upload-expires';

export function installCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    reply.header('vary', 'Origin');
    if (!origin || !allowed.has(origin)) return;
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-credentials', 'true');
    // File downloads: a browser app may read these for caching and resumed downloads; resumable
    // uploads (tus, routes/upload-routes.ts): where an upload is and stands.
    reply.header('access-control-expose-headers', `etag, content-range, accept-ranges, ${TUS_EXPOSED}`);
    if (request.method === 'OPTIONS') {
      reply.header('access-control-allow-methods', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
      reply.header(
        'access-control-allow-headers',
        `content-type, x-auth-token, authorization, range, if-none-match, if-modified-since, if-range, ${TUS_SENT}`,
      );
      reply.header('access-control-max-age', '3600');
      return reply.code(204).send();
    }
  });
  // Preflights reach the hook above only when a route matches their path.
  app.options('/*', async (_request, reply) => reply.code(204).send());
}
