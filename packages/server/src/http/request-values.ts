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
  if (body === undefined || body === null) return withoutNulChars({ ...query });
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) {
    throw new RoostError('malformed', 'malformed_body', 'The body must be a JSON object.');
  }
  return withoutNulChars({ ...query, ...(body as Record<string, unknown>) });
}

/** The query parameters alone, for requests whose body is not parameters (a streamed upload). */
export function queryValues(request: FastifyRequest): Record<string, unknown> {
  return withoutNulChars({ ...((request.query ?? {}) as Record<string, unknown>) });
}

/**
 * Text with a NUL character is refused as malformed: PostgreSQL cannot store it (a 500 otherwise)
 * and no legitimate parameter holds one. Walks without recursion, so deep nesting is harmless.
 */
function withoutNulChars(values: Record<string, unknown>): Record<string, unknown> {
  const stack: unknown[] = [values];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.includes('\u0000')) throw new RoostError('malformed', 'nul_character', 'Text may not contain the NUL character.');
    } else if (value !== null && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) stack.push(key, member);
    }
  }
  return values;
}
