import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, isXhr } from '@roost/forms';
import { isRoostError } from '../core/errors.js';
import { STATUS } from '../http/error-handler.js';
import { renderPage } from './layout.js';

/**
 * Failures of page requests answer a page (or, for the form script's ajax requests, an alert
 * the script puts in place of the form), with the statuses the API uses. As in the API, no
 * internal message reaches the browser: a 500 says only that something went wrong.
 */

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign in first',
  403: 'Not allowed',
  404: 'Not found',
  413: 'Too large',
  415: 'Not a form',
  422: 'Invalid input',
  429: 'Too many requests',
  503: 'Unavailable',
};

/** Fastify's and @fastify/multipart's own errors, in words for a page. */
const FRAMEWORK: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'The form is too large.' },
  FST_FILES_LIMIT: { status: 413, message: 'This form takes no files.' },
  FST_PARTS_LIMIT: { status: 413, message: 'The form has too many fields.' },
  FST_FIELDS_LIMIT: { status: 413, message: 'The form has too many fields.' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, message: 'The form is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Send the form as form fields.' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, message: 'Send the form as form fields.' },
};

function describe(error: FastifyError | Error): { status: number; message: string } {
  if (isRoostError(error)) return { status: STATUS[error.kind], message: error.message };
  const code = (error as FastifyError).code;
  const known = code ? FRAMEWORK[code] : undefined;
  if (known) return known;
  const status = (error as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, message: 'The request cannot be served.' };
  return { status: 500, message: 'Something went wrong on our side.' };
}

export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, status: number, message: string) {
  const alert = `<div class="alert alert-warning" role="alert"><div>${escapeHtml(message)}</div></div>`;
  reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store');
  if (isXhr({ headers: request.headers })) return reply.header('x-result', 'false').send(alert);
  const title = TITLES[status] ?? 'Error';
  return reply.send(renderPage({ title, body: `<div class="card">${alert}<p><a href="${escapeHtml(request.url)}">Try again</a></p></div>` }));
}

export function installPageErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const { status, message } = describe(error);
    if (status >= 500 && !isRoostError(error)) request.log.error({ err: error }, 'page failed');
    else request.log.info({ code: isRoostError(error) ? error.code : (error as FastifyError).code }, message);
    return sendErrorPage(request, reply, status, message);
  });
}
