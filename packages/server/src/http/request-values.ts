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

/**
 * A JSON body that is not parameters but a document (SCIM's resources, scim/scim-routes.ts), with
 * the same checks: no NUL character, no nesting deeper than `MAX_DEPTH`.
 */
export function checkedBody(body: unknown): unknown {
  if (body !== null && typeof body === 'object') withoutNulChars({ body });
  return body;
}

/** The query parameters alone, for requests whose body is not parameters (a streamed upload). */
export function queryValues(request: FastifyRequest): Record<string, unknown> {
  return withoutNulChars({ ...((request.query ?? {}) as Record<string, unknown>) });
}

/** Containers (objects, arrays) a parameter may be nested in, the body counted as the first. */
const MAX_DEPTH = 64;

/**
 * Text with a NUL character is refused as malformed: PostgreSQL cannot store it (a 500 otherwise)
 * and no legitimate parameter holds one. So is nesting deeper than `MAX_DEPTH`: what reads the
 * values further on (schemas, JSON.stringify of a profile's `data`, the logger) recurses, and a
 * body of a few kilobytes could otherwise exhaust the stack (a 500). Walks without recursion.
 */
function withoutNulChars(values: Record<string, unknown>): Record<string, unknown> {
  // Two stacks rather than one of pairs: no allocation per value on this per-request path.
  const stack: unknown[] = [values];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const value = stack.pop();
    const depth = depths.pop() ?? 0;
    if (typeof value === 'string') {
      if (value.includes('\u0000'))
        throw new RoostError('malformed', 'nul_character', 'Text may not contain the NUL character.');
    } else if (value !== null && typeof value === 'object') {
      if (depth > MAX_DEPTH)
        throw new RoostError('malformed', 'too_deep', `Parameters may be nested at most ${MAX_DEPTH} levels deep.`);
      // for-in, not Object.entries: no array of pairs per object (Object.entries took a trip
      // into V8's runtime on every request). Parsed bodies and queries inherit nothing enumerable.
      for (const key in value) {
        stack.push(key, (value as Record<string, unknown>)[key]);
        depths.push(depth, depth + 1);
      }
    }
  }
  return values;
}
