import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldProblem } from '../core/errors.js';
import { failureHeaders, failureOf } from './failure.js';

export function failureBody(
  code: string,
  message: string,
  fields: FieldProblem[] = [],
  extra: Record<string, unknown> = {},
) {
  return { result: false, code, message, messages: [message, ...fields], invalid: fields, ...extra };
}

/**
 * The API's failures leave as JSON: `result: false`, `code`, `message`, `messages` (the message
 * and the field pairs), `invalid` (the pairs). What the failure is, and its log line, come from
 * `failureOf` (failure.ts), which the pages' renderer uses too (admin/page-kit/page-errors.ts).
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.decorateRequest('failureCode', null);
  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const failure = failureOf(error, request);
    failureHeaders(error, reply);
    return reply.code(failure.status).send(failureBody(failure.code, failure.message, failure.fields, failure.extra));
  });

  app.setNotFoundHandler((request, reply) => {
    request.failureCode = 'not_found';
    reply.code(404).send(failureBody('not_found', `Nothing at ${request.method} ${request.url.split('?')[0]}.`));
  });
}
