import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * The request id (docs/operations.md, "Logs"): the `x-request-id` a trusted proxy sent, so that one
 * request can be followed across the proxy and every process, else a random UUID. Taken only when
 * `trustRequestId` says so (by default with `trustProxy`): a client could otherwise pick ids that
 * tie its requests to another's in the log. A taken id is 1 to 128 visible ASCII characters (no
 * space, no control character); any other is replaced, never logged or echoed raw.
 */
const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTABLE = /^[!-~]{1,128}$/;

/** Fastify's `genReqId` (http-app.ts). */
export function requestIdOf(trusted: boolean): (request: IncomingMessage) => string {
  if (!trusted) return () => randomUUID();
  return (request) => {
    const sent = request.headers[REQUEST_ID_HEADER];
    return typeof sent === 'string' && ACCEPTABLE.test(sent) ? sent : randomUUID();
  };
}

/** Every answer carries its request id, failures and pages included. */
export function installRequestIdHeader(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
