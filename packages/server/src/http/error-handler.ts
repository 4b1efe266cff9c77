import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isRoostError, type ErrorKind, type FieldProblem } from '../core/errors.js';

/** The one table from error kind to HTTP status (the pages answer by it too). */
export const STATUS: Record<ErrorKind, number> = {
  invalid: 422,
  malformed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The `code` of the failure body this request was answered with, for the request log (request-log.ts). */
    failureCode: string | null;
  }
  interface FastifyContextConfig {
    /** Status of validation failures on this route: 200 in the user service (the original's way), 422 elsewhere. */
    validationStatus?: number;
  }
}

/** Safe texts for Fastify's own errors; anything else falls back to the status' text. */
const FASTIFY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Send JSON (application/json) or form fields.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large', message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'malformed_request',
    message: 'The Content-Length does not match the body.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_body', message: 'The JSON body is empty.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed_json', message: 'The body is not valid JSON.' },
};

const GENERIC: Record<number, string> = {
  400: 'The request is malformed.',
  404: 'Not found.',
  405: 'Method not allowed.',
  500: 'Something went wrong on our side.',
};

export function failureBody(
  code: string,
  message: string,
  fields: FieldProblem[] = [],
  extra: Record<string, unknown> = {},
) {
  return { result: false, code, message, messages: [message, ...fields], invalid: fields, ...extra };
}

/**
 * Every failure leaves as JSON: `result: false`, `code`, `message`, `messages` (the message and
 * the field pairs), `invalid` (the pairs). Unknown errors become a fixed 500 text: the real
 * one goes to the log only. 4xx are logged at info, 5xx at error.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.decorateRequest('failureCode', null);
  /** Send a failure, keeping its code for the request's log line: the code logged is the code sent. */
  const fail = (request: FastifyRequest, reply: FastifyReply, status: number, body: ReturnType<typeof failureBody>) => {
    request.failureCode = body.code;
    return reply.code(status).send(body);
  };
  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (isRoostError(error)) {
      const status =
        error.kind === 'invalid'
          ? (request.routeOptions.config.validationStatus ?? STATUS.invalid)
          : STATUS[error.kind];
      if (status >= 500) request.log.error({ err: error.cause ?? error, code: error.code }, error.message);
      else request.log.info({ code: error.code }, error.message);
      if (error.kind === 'unauthenticated' && error.code === 'not_signed_in')
        reply.header('www-authenticate', 'Bearer');
      if (error.retryAfterSeconds !== undefined)
        reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
      return fail(request, reply, status, failureBody(error.code, error.message, error.fields, error.body));
    }
    const fastifyError = error as FastifyError;
    const known = fastifyError.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
    if (known) {
      request.log.info({ code: known.code, fastifyCode: fastifyError.code }, known.message);
      return fail(request, reply, known.status, failureBody(known.code, known.message));
    }
    // JSON.parse failures from the content-type parser carry 400 and no Fastify code.
    const status =
      typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500
        ? fastifyError.statusCode
        : 500;
    if (status >= 500) {
      // A streamed answer whose client hung up before the first byte: nobody to tell, nothing broken.
      if (request.raw.destroyed) request.log.info({ err: error }, 'the client went away');
      else request.log.error({ err: error }, 'unhandled error');
      return fail(request, reply, 500, failureBody('internal_error', GENERIC[500] ?? ''));
    }
    request.log.info({ err: error }, 'client error');
    const message =
      error instanceof SyntaxError
        ? 'The body is not valid JSON.'
        : (GENERIC[status] ?? 'The request cannot be served.');
    return fail(
      request,
      reply,
      status,
      failureBody(error instanceof SyntaxError ? 'malformed_json' : 'bad_request', message),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    fail(request, reply, 404, failureBody('not_found', `Nothing at ${request.method} ${request.url.split('?')[0]}.`));
  });
}
