import type { IncomingMessage } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { PassThrough, Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type RunWithValues, runWithMultipart } from './multipart-upload.js';
import { queryValues, requestValues } from './request-values.js';

/**
 * Request bodies of the file store routes: JSON and form fields as everywhere (within
 * `bodyLimit`), multipart form data with the file part streamed, and the raw body of `@write`
 * streamed as the file itself. Uploads are never held in memory.
 */

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const MULTIPART = 'multipart/form-data';

const mediaTypeOf = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

export function pathnameOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * A raw `@write` body is the file itself, streamed: always with PUT (the Python connector sends
 * the file's own type, which may well be JSON), and with POST unless it is JSON, form fields or
 * multipart (the jQuery connector POSTs `{contents}` as JSON).
 */
function isRawUpload(request: FastifyRequest): boolean {
  if (!pathnameOf(request).endsWith('/@write')) return false;
  const type = mediaTypeOf(request);
  if (type === MULTIPART) return false;
  return request.method === 'PUT' || !(type === '' || type === JSON_TYPE || type === FORM);
}

const frameworkError = (message: string, code: string, statusCode: number) =>
  Object.assign(new Error(message), { code, statusCode });

/** Read a whole (small) body as text, refusing more than `limit` bytes. */
function readText(payload: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        payload.removeAllListeners('data');
        payload.resume();
        reject(frameworkError('body too large', 'FST_ERR_CTP_BODY_TOO_LARGE', 413));
        return;
      }
      chunks.push(chunk);
    });
    payload.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    payload.on('error', reject);
  });
}

/**
 * The parsers of the (encapsulated) file store plugin: everything but multipart goes through
 * one parser that passes a raw upload on as a stream and reads the rest as JSON or form fields,
 * like the other routes do; any other type is 415.
 */
export async function installUploadParsers(
  app: FastifyInstance,
  options: { bodyLimit: number; largestFile: number },
): Promise<void> {
  app.removeAllContentTypeParsers();
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: options.largestFile + 1, files: 1, fields: 100, fieldSize: options.bodyLimit, parts: 101 },
  });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('*', (request, payload, done) => {
    if (isRawUpload(request)) return done(null, payload);
    const type = mediaTypeOf(request);
    if (type !== '' && type !== JSON_TYPE && type !== FORM) {
      return done(frameworkError('unsupported media type', 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 415), undefined);
    }
    readText(payload, options.bodyLimit).then(
      (text) => {
        if (type === FORM) return done(null, { ...parseQuery(text) });
        if (text.trim() === '') return done(null, {});
        return parseJson(request, text, done);
      },
      (err: Error) => done(err, undefined),
    );
  });
}

/**
 * A request body as a stream the blob store may consume and, on failure, destroy, without
 * destroying the socket that must still carry the answer (a 413, a 401). A client that aborts
 * fails the stream, so no upload waits forever.
 */
function uploadStream(raw: IncomingMessage): Readable {
  const body = new PassThrough({ highWaterMark: 256 * 1024 });
  raw.on('error', (err) => body.destroy(err));
  raw.on('close', () => {
    if (!raw.complete) body.destroy(new Error('upload aborted'));
  });
  raw.pipe(body);
  return body;
}

function declaredSize(request: FastifyRequest): number | undefined {
  const length = request.headers['content-length'];
  return length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
}

/**
 * Run an operation with its parameters wherever they came from, and with the upload when it
 * takes one (`takesUpload`): the raw body, or the first file part of a multipart body (the
 * fields before it count, as HTML forms send them first).
 */
export async function runWithBody(
  request: FastifyRequest,
  takesUpload: boolean,
  maxFileBytes: number,
  run: RunWithValues,
): Promise<object> {
  if (takesUpload && request.body instanceof Readable) {
    return run(queryValues(request), {
      stream: uploadStream(request.raw),
      mime: request.headers['content-type'],
      size: declaredSize(request),
    });
  }
  // Fastify parses no empty body: an empty PUT (only `@write` takes PUT) is a file of 0 bytes.
  if (takesUpload && request.method === 'PUT')
    return run(queryValues(request), { stream: Readable.from([]), mime: request.headers['content-type'], size: 0 });
  if (!takesUpload || !request.isMultipart()) return run(requestValues(request));
  return runWithMultipart(request, { ...queryValues(request) }, maxFileBytes, run);
}
