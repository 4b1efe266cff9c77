import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The pattern a request is logged and counted by (here and metrics.ts): its route's, or a
     * narrower one its handler names (a file store's `/<store>/{path}/@<op>`,
     * routes/filestore-routes.ts), never the URL with its values.
     */
    routePattern: string | null;
  }
}

/** Query parameters whose values are secrets (links with a token, a provider's code): never logged. */
const SECRET_PARAMETERS = /^(token|password|secret|code|state|signature|access_token|x-auth-token)$/i;

/** The URL as logged: its secrets' values replaced. */
function loggedUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const parameters = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0] ?? '';
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A name that does not decode is kept as sent: it is no secret's name either.
      }
      return SECRET_PARAMETERS.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${parameters.join('&')}`;
}

/**
 * One line per request at `info` (docs/operations.md, "Logs") in pino-http's shape, as Fastify's
 * own two lines would say it in one: `req` (`id`, `method`, `url`, `remoteAddress`), `res`
 * (`statusCode`), `responseTime` (milliseconds), and Roost's own: `route` (the pattern),
 * `userId`, and for a failure the `code` the client got (failure.ts records it), with `reqId` as
 * on every line of the request (request-logger.ts). Installed only
 * when `logRequests` is on and the log level lets `info` lines through: otherwise requests pay for
 * no hook at all (the benchmarks run at `error`).
 */
const INFO_OR_LOWER = new Set(['info', 'debug', 'trace']);

export function installRequestLog(app: FastifyInstance, log: FastifyBaseLogger, enabled: boolean): void {
  if (!enabled || !INFO_OR_LOWER.has(log.level)) return;
  app.addHook('onResponse', async (request, reply) => {
    const caller = request.roostCaller ? await request.roostCaller.catch(() => null) : null;
    // The server's logger with `reqId` named, as the request's own would bind it: making that
    // child for a line costs more than the line (request-logger.ts).
    log.info(
      {
        reqId: request.id,
        req: { id: request.id, method: request.method, url: loggedUrl(request.url), remoteAddress: request.ip },
        res: { statusCode: reply.statusCode },
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
        route: request.routePattern ?? request.routeOptions.url ?? null,
        userId: caller?.user?.id ?? null,
        ...(request.failureCode ? { code: request.failureCode } : {}),
      },
      'request completed',
    );
  });
}
