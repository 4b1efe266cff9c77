import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { Config } from '../../core/config.js';
import { RoostError } from '../../core/errors.js';
import type { Principal } from '../../core/permissions.js';
import {
  API_SEGMENT,
  fileStoreErrors,
  parsePath,
  pathOf,
  ROOT,
  type FilePath,
  type FileStore,
  type FileStores,
} from '../../filestore/index.js';
import type { UserService } from '../../users/index.js';
import { assertWriteOrigin, callerOf } from '../auth.js';
import { sendFile } from '../file-download.js';
import { docSchema } from '../openapi.js';
import { installUploadParsers, pathnameOf, runWithBody } from '../file-uploads.js';
import { fileOperations } from '../protocol/filestore-protocol.js';

export interface FileStoreRouteOptions {
  fileStores: FileStores;
  users: UserService;
  config: Config;
}

/** The operations by name (http/protocol/filestore-protocol.ts); the security tests enumerate them from here. */
const FILE_OPERATIONS = new Map(fileOperations.map((o) => [o.op, o]));
export const OPERATIONS = [...FILE_OPERATIONS.keys()];
/** Operations that change nothing: a cookie-authenticated cross-site request may call them. */
export const READ_ONLY = new Set(fileOperations.filter((o) => o.readOnly).map((o) => o.op));
/** Operations that take contents: a streamed raw body (`@write`) or a multipart file part. */
export const UPLOADS = new Set(fileOperations.filter((o) => o.upload).map((o) => o.op));

/**
 * `/<store>[/api]/<path>[/@<op>]` split into decoded path segments and the operation (when any).
 * A segment is decoded once, then split at the `/` it held: generated clients (openapi-fetch, any
 * client of /openapi.json) send the `{path}` parameter through encodeURIComponent, so
 * `photos/cat.jpg` arrives as `photos%2Fcat.jpg`. The segments are split only here, after the
 * operation was found in the raw URL, and every one is then checked by `pathOf`
 * (filestore/file-paths.ts) as any other: `..`, empty segments, `@` names and double encodings
 * are refused after the split as before it.
 */
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
  const decoded = segments.flatMap((s) => {
    try {
      return decodeURIComponent(s).split('/');
    } catch {
      throw fileStoreErrors.invalid_path({
        fields: [['path', 'invalid']],
        message: 'The path is not valid percent-encoded UTF-8.',
      });
    }
  });
  // One trailing slash (`docs/` or `docs%2F`) names a directory; any other empty segment is refused by `pathOf`.
  if (decoded.at(-1) === '') decoded.pop();
  return { path: pathOf(decoded), op };
}

/**
 * The pattern a file request is logged and counted by (http/request-log.ts, http/metrics.ts): the
 * store's documented `/<store>/{path}/@<op>`, or `/<store>/{path}` for a download; never the path
 * (the user's, and unbounded as a label), nor an unknown operation's name.
 */
function routePatternOf(request: FastifyRequest, store: string): string {
  const pathname = pathnameOf(request);
  const last = pathname.slice(pathname.lastIndexOf('/') + 1);
  if (!last.startsWith('@')) return `/${store}/{path}`;
  const op = last.slice(1);
  return FILE_OPERATIONS.has(op) ? `/${store}/{path}/@${op}` : `/${store}/{path}/@unknown`;
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

  // This plugin is encapsulated: its parsers serve only the file store routes.
  await installUploadParsers(app, { bodyLimit: config.bodyLimit, largestFile: largest });

  const routeConfig = { validationStatus: 422 };
  for (const name of fileStores.names) {
    const store = fileStores.get(name) as FileStore;
    const maxBytes = store.options.maxFileBytes;

    /**
     * A download: the file streamed; with `?thumb=WxH` its thumbnail (docs/filestore.md,
     * "Thumbnails") in the format the request's `Accept` ranks first among those it may take; or,
     * where the store's `direct.downloads` asks for it, a 302 to a short-lived presigned GET of the
     * bucket (filestore/direct-ops.ts `link`, after the same `read` check).
     */
    async function download(
      request: FastifyRequest,
      reply: FastifyReply,
      principal: Principal,
      path: FilePath,
    ): Promise<FastifyReply> {
      const thumb = (request.query as Record<string, unknown> | undefined)?.thumb;
      if (thumb !== undefined) {
        reply.header('vary', 'Accept');
        const negotiate = (types: readonly string[]) => new Negotiator(request).mediaType([...types]);
        return sendFile(
          request,
          reply,
          await store.thumbnail(principal, path, typeof thumb === 'string' ? thumb : '', negotiate),
        );
      }
      if (!store.options.direct?.downloads) return sendFile(request, reply, await store.contents(principal, path));
      const { url } = await store.link(principal, path);
      reply.header('cache-control', 'no-store');
      return reply.redirect(url, 302);
    }

    async function handle(request: FastifyRequest, reply: FastifyReply, fixedOp?: string) {
      if (!fixedOp) request.routePattern = routePatternOf(request, name);
      const caller = await callerOf(request, users);
      const located = fixedOp ? { path: ROOT, op: fixedOp } : locate(request, name);
      const { op } = located;
      let path = located.path;
      if (op === null) {
        if (request.method !== 'GET' && request.method !== 'HEAD')
          throw fileStoreErrors.not_found({ message: 'Name an operation (`/@<op>`) to change a file.' });
        return download(request, reply, caller.principal, path);
      }
      const operation = FILE_OPERATIONS.get(op);
      if (!operation) throw fileStoreErrors.not_found({ message: `There is no operation @${op}.` });
      if (request.method === 'PUT' && op !== 'write')
        throw new RoostError('malformed', 'bad_request', 'Only @write takes PUT.');
      // HEAD must stay safe: it reads a file's headers, it never runs an operation.
      if (request.method === 'HEAD' && op !== 'read')
        throw new RoostError('malformed', 'bad_request', 'HEAD is for downloads only.');
      if (!operation.readOnly) assertWriteOrigin(request, caller, config.corsOrigins);
      const { call } = operation;
      if (call === 'download') return download(request, reply, caller.principal, path);
      reply.header('cache-control', 'no-store');
      try {
        return await runWithBody(request, operation.upload === true, maxBytes, (values, upload) => {
          // The AngularJS connector leaves the path out of the URL; the jQuery one repeats it in the body.
          if (path === ROOT && typeof values.path === 'string' && values.path !== '' && !fixedOp)
            path = parsePath(values.path);
          return call(store, caller.principal, path, values, upload);
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
        // Documented as `/<store>/{path}/@<op>` (http/protocol/filestore-docs.ts).
        schema: docSchema({
          operationId: `${name}_${op}_api`,
          tags,
          summary: `${op} of ${name}`,
          in: 'none',
          alias: true,
        }),
        handler: (request, reply) => handle(request, reply, op),
      });
    }
    const summary =
      `File store ${name}: \`/${name}/<path>/@<op>\` (also under \`/${name}/api/\`), op one of ` +
      `${OPERATIONS.join(', ')}; without an op, GET downloads the file.`;
    for (const url of [`/${name}`, `/${name}/*`]) {
      app.route({
        // HEAD is answered here: Fastify's own HEAD route would say `content-length: 0`.
        method: ['GET', 'HEAD', 'POST', 'PUT'],
        exposeHeadRoute: false,
        url,
        config: routeConfig,
        schema: docSchema({ operationId: `${name}_any`, tags, summary, in: 'none', alias: true }),
        handler: (request, reply) => handle(request, reply),
      });
    }
  }
}
