import type { IncomingMessage } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { PassThrough, Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../core/config.js';
import { RoostError } from '../../core/errors.js';
import { API_SEGMENT, fileStoreErrors, parsePath, pathOf, ROOT, type FilePath, type FileStore, type FileStores, type Upload } from '../../filestore/index.js';
import type { UserService } from '../../users/index.js';
import { assertSameOrigin, callerOf } from '../auth.js';
import { sendFile } from '../file-download.js';
import { docSchema } from '../openapi.js';
import { queryValues, requestValues } from '../request-values.js';

export interface FileStoreRouteOptions {
  fileStores: FileStores;
  users: UserService;
  config: Config;
}

/** Operations that change nothing: a cookie-authenticated cross-site request may call them. */
const READ_ONLY = new Set(['getItem', 'read', 'list', 'allowed', 'getPermissions', 'getOwner', 'ping']);
/** Operations that take contents: a streamed raw body (`@write`) or a multipart file part. */
const UPLOADS = new Set(['newItem', 'setItem', 'write']);
const OPERATIONS = [
  'getItem', 'newItem', 'setItem', 'read', 'write', 'move', 'removeItem', 'list',
  'allowed', 'getPermissions', 'setPermissions', 'getOwner', 'setOwner', 'ping',
];

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const MULTIPART = 'multipart/form-data';

const mediaTypeOf = (request: FastifyRequest) => (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
const pathnameOf = (request: FastifyRequest) => {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

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

function tooLarge(): Error {
  return Object.assign(new Error('body too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });
}

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
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    payload.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    payload.on('error', reject);
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

/** `/<store>[/api]/<path>[/@<op>]` split into decoded path segments and the operation (when any). */
function locate(request: FastifyRequest, store: string): { path: FilePath; op: string | null } {
  const raw = pathnameOf(request).slice(store.length + 2);
  const segments = raw === '' ? [] : raw.split('/');
  if (segments[0] === API_SEGMENT) segments.shift();
  let op: string | null = null;
  const last = segments.at(-1);
  if (last?.startsWith('@')) {
    op = last.slice(1);
    segments.pop();
  }
  // One trailing slash names a directory; any other empty segment is refused by `pathOf`.
  if (segments.at(-1) === '') segments.pop();
  const decoded = segments.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw fileStoreErrors.invalid_path({ fields: [['path', 'invalid']], message: 'The path is not valid percent-encoded UTF-8.' });
    }
  });
  return { path: pathOf(decoded), op };
}

/**
 * Every configured file store: `/<store>/<path>/@<op>` and `/<store>/api/<path>/@<op>` (as the
 * connectors build it), `/<store>/api/ping` and `/<store>/api/allowed` (the seed), and a plain
 * GET of `/<store>/<path>` that downloads the file. Bodies: JSON, form fields, multipart (a file
 * part is streamed), or for `@write` the raw file, streamed; all up to the store's
 * `maxFileBytes`. Validation failures answer 422.
 */
export async function registerFileStoreRoutes(app: FastifyInstance, options: FileStoreRouteOptions): Promise<void> {
  const { fileStores, users, config } = options;
  if (fileStores.names.length === 0) return;
  const largest = Math.max(...fileStores.names.map((n) => config.fileStores[n]?.maxFileBytes ?? 0));

  // This plugin is encapsulated: its parsers serve only the file store routes. Everything but
  // multipart goes through one parser that passes a raw upload on as a stream and reads the rest
  // as JSON or form fields (within `bodyLimit`), like the other routes.
  app.removeAllContentTypeParsers();
  await app.register(multipart, { throwFileSizeLimit: false, limits: { fileSize: largest + 1, files: 1, fields: 100, fieldSize: config.bodyLimit, parts: 101 } });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('*', (request, payload, done) => {
    if (isRawUpload(request)) return done(null, payload);
    const type = mediaTypeOf(request);
    if (type !== '' && type !== JSON_TYPE && type !== FORM) {
      return done(Object.assign(new Error('unsupported media type'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }), undefined);
    }
    readText(payload, config.bodyLimit).then(
      (text) => {
        if (type === FORM) return done(null, { ...parseQuery(text) });
        if (text.trim() === '') return done(null, {});
        return parseJson(request, text, done);
      },
      (err: Error) => done(err, undefined),
    );
  });

  const routeConfig = { validationStatus: 422 };
  for (const name of fileStores.names) {
    const store = fileStores.get(name) as FileStore;
    const maxBytes = store.options.maxFileBytes;

    /** Run an operation with the parameters wherever they came from, and the upload if any. */
    async function runWithBody(request: FastifyRequest, op: string, run: (values: Record<string, unknown>, upload?: Upload) => Promise<Record<string, unknown>>) {
      if (UPLOADS.has(op) && request.body instanceof Readable) {
        return run(queryValues(request), { stream: uploadStream(request.raw), mime: request.headers['content-type'], size: declaredSize(request) });
      }
      // Fastify parses no empty body: an empty PUT is a file of 0 bytes.
      if (op === 'write' && request.method === 'PUT') return run(queryValues(request), { stream: Readable.from([]), mime: request.headers['content-type'], size: 0 });
      if (!UPLOADS.has(op) || !request.isMultipart()) return run(requestValues(request));
      const values: Record<string, unknown> = { ...queryValues(request) };
      let result: Record<string, unknown> | undefined;
      // Fields before the file part count for it (put them first, as HTML forms do).
      for await (const part of request.parts({ limits: { fileSize: maxBytes + 1 } })) {
        if (part.type === 'file') {
          if (result) part.file.resume();
          else result = await run({ ...values }, { stream: part.file, mime: part.mimetype });
        } else if (typeof part.value === 'string') {
          if (part.value.includes('\u0000')) throw new RoostError('malformed', 'nul_character', 'Text may not contain the NUL character.');
          values[part.fieldname] = part.value;
        }
      }
      return result ?? run(values);
    }

    async function handle(request: FastifyRequest, reply: FastifyReply, fixedOp?: string) {
      const caller = await callerOf(request, users);
      const located = fixedOp ? { path: ROOT, op: fixedOp } : locate(request, name);
      const { op } = located;
      let path = located.path;
      if (op === null) {
        if (request.method !== 'GET' && request.method !== 'HEAD') throw fileStoreErrors.not_found({ message: 'Name an operation (`/@<op>`) to change a file.' });
        return sendFile(request, reply, await store.contents(caller.principal, path));
      }
      if (!OPERATIONS.includes(op)) throw fileStoreErrors.not_found({ message: `There is no operation @${op}.` });
      if (request.method === 'PUT' && op !== 'write') throw new RoostError('malformed', 'bad_request', 'Only @write takes PUT.');
      // HEAD must stay safe: it reads a file's headers, it never runs an operation.
      if (request.method === 'HEAD' && op !== 'read') throw new RoostError('malformed', 'bad_request', 'HEAD is for downloads only.');
      if (caller.via === 'cookie' && !READ_ONLY.has(op)) assertSameOrigin(request, config.corsOrigins);
      if (op === 'read') return sendFile(request, reply, await store.contents(caller.principal, path));
      reply.header('cache-control', 'no-store');
      try {
        return await runWithBody(request, op, (values, upload) => {
          // The AngularJS connector leaves the path out of the URL; the jQuery one repeats it in the body.
          if (path === ROOT && typeof values.path === 'string' && values.path !== '' && !fixedOp) path = parsePath(values.path);
          return store.run(op, caller.principal, path, values, upload);
        });
      } catch (err) {
        // An upload refused before its end: close the connection rather than read the rest.
        if (!request.raw.complete) reply.header('connection', 'close');
        throw err;
      }
    }

    const tags = ['file store'];
    for (const op of ['ping', 'allowed']) {
      app.route({
        method: ['GET', 'POST'],
        url: `/${name}/api/${op}`,
        config: routeConfig,
        schema: docSchema({ tags, summary: `${op} of the file store ${name} (also \`/${name}/<path>/@${op}\`).`, in: 'none' }),
        handler: (request, reply) => handle(request, reply, op),
      });
    }
    const summary = `File store ${name}: \`/${name}/<path>/@<op>\` (also under \`/${name}/api/\`), op one of ${OPERATIONS.join(', ')}; without an op, GET downloads the file.`;
    for (const url of [`/${name}`, `/${name}/*`]) {
      app.route({
        // HEAD is answered here: Fastify's own HEAD route would say `content-length: 0`.
        method: ['GET', 'HEAD', 'POST', 'PUT'],
        exposeHeadRoute: false,
        url,
        config: routeConfig,
        bodyLimit: Math.max(config.bodyLimit, maxBytes),
        schema: docSchema({ tags, summary, in: 'none' }),
        handler: (request, reply) => handle(request, reply),
      });
    }
  }
}
