import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, isXhr } from '@roost/forms';
import { isRoostError } from '../../core/errors.js';
import { failureHeaders, failureOf } from '../../http/failure.js';
import { renderPage } from '../layout.js';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign in first',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Invalid input',
  429: 'Too many requests',
  503: 'Unavailable',
};

/** The framework's refusals in the words of a page (the API's words speak of JSON). */
const PAGE_FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Send the form as the page does (form fields or multipart).',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The form is too large.',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'The form is not valid multipart data.',
};

/**
 * A sign-in refused for its address (users/signin-throttle.ts, `rate_limited`) leaves the form
 * as the error it is, so the page answers 429 with Retry-After as the API does, instead of
 * showing the form again with 422. The forms that sign in call this in their catch blocks.
 */
export function rethrowThrottled(err: unknown): void {
  if (isRoostError(err) && err.code === 'rate_limited') throw err;
}

/** "Try again in 10 minutes.": a page's words for a Retry-After of `seconds`. */
function retryWords(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  if (seconds < 60) return `Try again in ${Math.max(1, Math.ceil(seconds))} seconds.`;
  return `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** Where "try again" leads: the page itself, by GET, without its query string. */
const pageUrlOf = (request: FastifyRequest) => (request.raw.url ?? '/').split('?')[0] ?? '/';

/**
 * Pages answer failures as pages: the status, a title and the failure's safe message
 * (`failureOf`, http/failure.ts, the API's own function), with a link back to the page. An ajax
 * request (the upload form) gets the message alone, which the form script puts where the form
 * was. Installed once for every page (admin/index.ts, `registerPages`).
 */
export function installPageErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const failure = failureOf(error, request);
    failureHeaders(error, reply);
    const { status } = failure;
    // A RoostError's message is written for people; the framework's refusals get a page's words.
    let message =
      (failure.frameworkCode && PAGE_FRAMEWORK_MESSAGES[failure.frameworkCode]) ||
      (isRoostError(error) || status >= 500 ? failure.message : TITLES[status] || failure.message);
    // A request refused before its body was read: close rather than read the rest.
    if (!request.raw.complete) reply.header('connection', 'close');
    reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store');
    const wait = isRoostError(error) && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds : null;
    // The API's "Try again later." (core/errors.ts) made definite from the Retry-After it sends.
    if (wait !== null) message = `${message.replace(/\s*Try again later\.$/, '')} ${retryWords(wait)}`;
    const again = `<p><a href="${escapeHtml(pageUrlOf(request))}">Load the page again</a></p>`;
    if (isXhr({ headers: request.headers })) {
      return reply
        .header('x-result', 'false')
        .send(`<div class="messages error" role="alert"><p>${escapeHtml(message)}</p>${again}</div>`);
    }
    return reply.send(
      renderPage({
        title: TITLES[status] ?? 'Error',
        body: `<div class="messages error" role="alert"><p>${escapeHtml(message)}</p></div>${again}`,
      }),
    );
  });
}
