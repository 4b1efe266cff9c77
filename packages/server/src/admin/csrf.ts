import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { RoostError } from '../core/errors.js';
import { tokenOf } from '../http/auth.js';

/**
 * CSRF tokens of the pages' forms, derived from the session token in the HttpOnly cookie: a
 * cross-site page can read neither, and every process of a scaled-out Roost derives the same
 * token without shared state. A new sign-in makes a new session and so a new CSRF token.
 */
export function csrfTokenOf(request: FastifyRequest): string {
  const found = tokenOf(request);
  return found ? createHash('sha256').update(`roost-csrf\0${found.token}`).digest('base64url') : '';
}

/** Throws 403 `csrf_failed` unless `submitted` is the CSRF token of this request's session. */
export function assertCsrf(request: FastifyRequest, submitted: unknown): void {
  const expected = Buffer.from(csrfTokenOf(request));
  const given = Buffer.from(typeof submitted === 'string' ? submitted : '');
  if (expected.length === 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new RoostError(
      'forbidden',
      'csrf_failed',
      'The form is out of date or was sent from another site; load the page and try again.',
    );
  }
}
