import type { FastifyRequest } from 'fastify';
import { RoostError } from '../core/errors.js';

/**
 * The parameters of an operation, wherever the caller put them: the query string, and a JSON or
 * form body on top (the connectors send JSON bodies; HTML forms and curl send form fields or a
 * query). A body that is not an object is a malformed request.
 */
export function requestValues(request: FastifyRequest): Record<string, unknown> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = request.body;
  if (body === undefined || body === null) return { ...query };
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) {
    throw new RoostError('malformed', 'malformed_body', 'The body must be a JSON object.');
  }
  return { ...query, ...(body as Record<string, unknown>) };
}
