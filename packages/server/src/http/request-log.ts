import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestRecord, RequestRecords } from '../core/request-records.js';

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

/**
 * Query parameters whose values are secrets (links with a token, a provider's code): never logged.
 * Every operation of the user service answers GET with its fields in the query (docs/users.md), so
 * its credentials are here too: a new password, the second step's codes, an app's ID token.
 */
const SECRET_PARAMETERS = new Set(
  [
    ...['token', 'password', 'newpassword', 'secret', 'code', 'recoveryCode', 'smsCode', 'idToken'],
    ...['id_token', 'id_token_hint', 'refresh_token', 'client_secret', 'code_verifier', 'access_token'],
    ...['state', 'RelayState', 'SAMLResponse', 'signature', 'x-auth-token'],
  ].map((name) => name.toLowerCase()),
);

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
      return SECRET_PARAMETERS.has(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${parameters.join('&')}`;
}

/** What the line and the kept record say of a request, once answered. */
async function recordOf(request: FastifyRequest, reply: FastifyReply): Promise<RequestRecord> {
  const caller = request.roostCaller ? await request.roostCaller.catch(() => null) : null;
  return {
    at: new Date().toISOString(),
    requestId: request.id,
    method: request.method,
    url: loggedUrl(request.url),
    route: request.routePattern ?? request.routeOptions.url ?? null,
    status: reply.statusCode,
    ms: Math.round(reply.elapsedTime * 10) / 10,
    userId: caller?.user?.id ?? null,
    address: request.ip ?? null,
    code: request.failureCode ?? null,
  };
}

/**
 * One line per request at `info` (docs/operations.md, "Logs") in pino-http's shape, as Fastify's
 * own two lines would say it in one: `req` (`id`, `method`, `url`, `remoteAddress`), `res`
 * (`statusCode`), `responseTime` (milliseconds), and Roost's own: `route` (the pattern),
 * `userId`, and for a failure the `code` the client got (failure.ts records it), with `reqId` as
 * on every line of the request (request-logger.ts). With `requestLog.keep`, the same is kept for
 * the admin logs page (`records`, written in batches off the answer's way). Installed only when
 * one of them is wanted: otherwise requests pay for no hook at all (the benchmarks run at `error`).
 */
const INFO_OR_LOWER = new Set(['info', 'debug', 'trace']);

export function installRequestLog(
  app: FastifyInstance,
  log: FastifyBaseLogger,
  enabled: boolean,
  records: RequestRecords | null,
): void {
  const logs = enabled && INFO_OR_LOWER.has(log.level);
  if (!logs && !records) return;
  app.addHook('onResponse', async (request, reply) => {
    const record = await recordOf(request, reply);
    records?.add(record);
    if (!logs) return;
    // The server's logger with `reqId` named, as the request's own would bind it: making that
    // child for a line costs more than the line (request-logger.ts).
    log.info(
      {
        reqId: record.requestId,
        req: { id: record.requestId, method: record.method, url: record.url, remoteAddress: record.address },
        res: { statusCode: record.status },
        responseTime: record.ms,
        route: record.route,
        userId: record.userId,
        ...(record.code ? { code: record.code } : {}),
      },
      'request completed',
    );
  });
}
