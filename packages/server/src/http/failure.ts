import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isRoostError, type ErrorKind, type FieldProblem } from '../core/errors.js';

/** The one table from error kind to HTTP status (the pages answer by it too). */
const STATUS: Record<ErrorKind, number> = {
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
    /** The `code` of the failure this request was answered with, for the request log (request-log.ts). */
    failureCode: string | null;
  }
  interface FastifyContextConfig {
    /** Status of validation failures on this route: 200 in the user service (the original's way), 422 elsewhere. */
    validationStatus?: number;
  }
}

/** What any error means for the caller: the one answer both renderers (JSON, page) show. */
export interface Failure {
  status: number;
  code: string;
  /** Safe to show: a RoostError's message or a fixed sentence, never an internal error's text. */
  message: string;
  fields: FieldProblem[];
  /** Members a RoostError adds to its JSON body (the data store's `result: 0, success: []`). */
  extra: Record<string, unknown>;
  /** The Fastify error code behind it, when the framework refused the request. */
  frameworkCode?: string;
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

/**
 * Any error as the caller's failure, and logged once: a RoostError as it says (4xx at info,
 * 5xx at error with its cause), the framework's refusals with fixed texts, anything else as a
 * 500 whose real text goes to the log only. The code is kept on the request, so the request's
 * log line names the code the client got.
 */
export function failureOf(error: FastifyError | Error, request: FastifyRequest): Failure {
  const failure = classify(error, request);
  request.failureCode = failure.code;
  if (isRoostError(error)) {
    if (failure.status >= 500) request.log.error({ err: error.cause ?? error, code: error.code }, error.message);
    else request.log.info({ code: error.code }, error.message);
  } else if (failure.status >= 500) {
    // A streamed answer whose client hung up before the first byte: nobody to tell, nothing broken.
    // The socket says so; the request stream does not (it is destroyed too once a body is read,
    // which made every failing POST with a body look like a client gone).
    if (request.raw.socket?.destroyed) request.log.info({ err: error }, 'the client went away');
    else request.log.error({ err: error }, 'unhandled error');
  } else if (failure.frameworkCode && FASTIFY_ERRORS[failure.frameworkCode]) {
    request.log.info({ code: failure.code, fastifyCode: failure.frameworkCode }, failure.message);
  } else {
    request.log.info({ err: error }, 'client error');
  }
  return failure;
}

function classify(error: FastifyError | Error, request: FastifyRequest): Failure {
  if (isRoostError(error)) {
    const status =
      error.kind === 'invalid' ? (request.routeOptions.config.validationStatus ?? STATUS.invalid) : STATUS[error.kind];
    return { status, code: error.code, message: error.message, fields: error.fields, extra: error.body };
  }
  const fastifyError = error as FastifyError;
  const frameworkCode = fastifyError.code;
  const known = frameworkCode ? FASTIFY_ERRORS[frameworkCode] : undefined;
  if (known) return { ...known, fields: [], extra: {}, frameworkCode };
  // JSON.parse failures from the content-type parser carry 400 and no Fastify code.
  const given = fastifyError.statusCode;
  const status = typeof given === 'number' && given >= 400 && given < 500 ? given : 500;
  const base = { status, fields: [], extra: {}, ...(frameworkCode ? { frameworkCode } : {}) };
  if (status >= 500) return { ...base, code: 'internal_error', message: GENERIC[500] ?? '' };
  if (error instanceof SyntaxError) return { ...base, code: 'malformed_json', message: 'The body is not valid JSON.' };
  return { ...base, code: 'bad_request', message: GENERIC[status] ?? 'The request cannot be served.' };
}

/** The headers a failure carries whatever renders it: the sign-in challenge, the wait before a retry. */
export function failureHeaders(error: FastifyError | Error, reply: FastifyReply): void {
  if (!isRoostError(error)) return;
  if (error.kind === 'unauthenticated' && error.code === 'not_signed_in') reply.header('www-authenticate', 'Bearer');
  if (error.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
}
