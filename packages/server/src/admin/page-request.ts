import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { addValue, type FormRequest, type FormValues } from '@roost/forms';
import { RoostError } from '../core/errors.js';

/**
 * Request values of the page forms. The form library posts `multipart/form-data` (its script
 * sends `FormData`); curl and tests may post urlencoded fields. The admin forms take no files:
 * a file part is refused (413), as is a body over `bodyLimit`.
 */
export async function installPageBodyParsers(app: FastifyInstance, bodyLimit: number): Promise<void> {
  await app.register(multipart, { limits: { files: 0, fields: 500, parts: 500, fieldSize: bodyLimit, fieldNameSize: 200 } });
}

function noNul(value: string): string {
  // PostgreSQL cannot store it and no form value needs it (the API refuses it the same way).
  if (value.includes('\u0000')) throw new RoostError('malformed', 'nul_character', 'Text may not contain the NUL character.');
  return value;
}

/** Plain text values of a parsed body or query: strings and lists of strings; anything else is dropped. */
function textValues(source: unknown): FormValues {
  const out: FormValues = {};
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return out;
  for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
    if (typeof value === 'string') addValue(out, noNul(key), noNul(value));
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') addValue(out, noNul(key), noNul(v));
  }
  return out;
}

/** The body's fields: multipart parts read here (within the limits above), urlencoded and JSON as parsed. */
async function bodyValues(request: FastifyRequest, bodyLimit: number): Promise<FormValues> {
  if (!request.isMultipart()) return textValues(request.body);
  const out: FormValues = {};
  let size = 0;
  for await (const part of request.parts()) {
    if (part.type !== 'field' || typeof part.value !== 'string') continue;
    size += part.value.length + part.fieldname.length;
    if (size > bodyLimit) throw new RoostError('too_large', 'body_too_large', 'The request body is too large.');
    addValue(out, noNul(part.fieldname), noNul(part.value));
  }
  return out;
}

/**
 * The `FormRequest` of a page request (query, body, headers), for the form library. Read the body
 * once per request: multipart parts are a stream.
 */
export async function formRequestOf(request: FastifyRequest, bodyLimit: number): Promise<FormRequest> {
  const headers: Record<string, string | string[] | undefined> = { ...request.headers };
  return {
    method: request.method,
    query: textValues(request.query),
    body: request.method === 'POST' ? await bodyValues(request, bodyLimit) : {},
    headers,
  };
}

/** A single text value of a request's values (the first of repeated ones), or ''. */
export function textOf(values: FormValues | undefined, key: string): string {
  const v = values?.[key];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : '';
}
