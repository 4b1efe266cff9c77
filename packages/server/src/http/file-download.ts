import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentType } from 'mime-types';
import type { FileContents } from '../filestore/index.js';
import { failureBody } from './error-handler.js';

/**
 * Answer a file: streamed from the blob store with its type, ETag (the SHA-256 of the contents),
 * Last-Modified, conditional requests (304) and single byte ranges (206, 416). Files are served
 * in a sandbox (CSP), so an uploaded HTML page cannot run script on Roost's origin, where the
 * `auth` cookie lives.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: FileContents,
): Promise<FastifyReply> {
  const etag = `"${file.hash}"`;
  const lastModified = new Date(Math.floor(file.mtime / 1000) * 1000).toUTCString();
  reply.header('etag', etag);
  reply.header('last-modified', lastModified);
  reply.header('cache-control', cacheControlOf(file.cache));
  reply.header('accept-ranges', 'bytes');
  reply.header(
    'content-security-policy',
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; media-src 'self'; sandbox",
  );
  // Other sites may embed a file (a public store's images); a private one needs a token or the
  // cookie, which SameSite=Lax does not send with another site's <img>.
  reply.header('cross-origin-resource-policy', 'cross-origin');

  const method = request.method;
  if ((method === 'GET' || method === 'HEAD') && notModified(request, etag, file.mtime)) return reply.code(304).send();

  reply.header('content-type', servableType(file.mime));
  const range = rangeOf(request, etag, lastModified, file.size);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${file.size}`);
    reply.header('content-type', 'application/json; charset=utf-8');
    return reply
      .code(416)
      .send(failureBody('range_not_satisfiable', `The range is outside the file (${file.size} bytes).`));
  }
  const length = range ? range.end - range.start + 1 : file.size;
  reply.header('content-length', String(length));
  if (range) {
    reply.code(206);
    reply.header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
  }
  if (method === 'HEAD' || length === 0) return reply.send();
  return reply.send(await file.open(range ?? undefined));
}

/**
 * The stored type as a header, or `application/octet-stream` where it cannot be one: rows
 * stored before types were checked as printable ASCII (filestore-inputs.ts) stay readable.
 */
function servableType(mime: string): string {
  const type = (mime && contentType(mime)) || mime;
  return type && /^[\x20-\x7e]+$/.test(type) ? type : 'application/octet-stream';
}

const CACHE_FLAGS =
  'public|private|no-cache|no-store|no-transform|must-revalidate|proxy-revalidate|immutable|must-understand';
const CACHE_AGES = 'max-age|s-maxage|stale-while-revalidate|stale-if-error';
const CACHE_DIRECTIVE = new RegExp(`^(${CACHE_FLAGS}|(${CACHE_AGES})=\\d{1,10})$`, 'i');

/**
 * The file's `cache` slot when it holds a Cache-Control value (directives only; the original's
 * `header` slot also held other things, such as `origin=local`, which are not sent). Otherwise
 * `private, no-cache`: caches keep the file but ask again, cheaply, with its ETag.
 */
function cacheControlOf(cache: string): string {
  const directives = cache
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  if (directives.length > 0 && directives.every((d) => CACHE_DIRECTIVE.test(d))) return directives.join(', ');
  return 'private, no-cache';
}

/** If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2). */
function notModified(request: FastifyRequest, etag: string, mtime: number): boolean {
  const noneMatch = request.headers['if-none-match'];
  if (noneMatch !== undefined)
    return noneMatch.trim() === '*' || noneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
  const since = request.headers['if-modified-since'];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && Math.floor(mtime / 1000) * 1000 <= time;
}

/**
 * One byte range of `Range: bytes=a-b`, `a-` or `-n`. Several ranges, other units, a malformed
 * header or an If-Range that no longer matches mean the whole file (RFC 9110 allows ignoring
 * Range); a range wholly past the end is unsatisfiable.
 */
function rangeOf(
  request: FastifyRequest,
  etag: string,
  lastModified: string,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  const header = request.headers.range;
  if (header === undefined) return null;
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag && ifRange !== lastModified) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== '' && Number(match[2]) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}
