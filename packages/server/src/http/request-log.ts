import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/**
 * One line per request at `info` (docs/operations.md, "Logs"): method, route (the pattern, not
 * the URL with its values), status, milliseconds, request id, user id, client address, and for
 * a failure the `code` the client got (error-handler.ts records it). Installed only when
 * `logRequests` is on and the log level lets `info` lines through: otherwise requests pay for
 * no hook at all (the benchmarks run at `error`).
 */
const INFO_OR_LOWER = new Set(['info', 'debug', 'trace']);

export function installRequestLog(app: FastifyInstance, log: FastifyBaseLogger, enabled: boolean): void {
  if (!enabled || !INFO_OR_LOWER.has(log.level)) return;
  app.addHook('onResponse', async (request, reply) => {
    const caller = request.roostCaller ? await request.roostCaller.catch(() => null) : null;
    log.info(
      {
        reqId: request.id,
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        userId: caller?.user?.id ?? null,
        address: request.ip,
        ...(request.failureCode ? { code: request.failureCode } : {}),
      },
      'request',
    );
  });
}
