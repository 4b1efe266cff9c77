import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream';
import type { Server } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerRequest } from 'srvx';
import { NodeRequest } from 'srvx/node';
import type { Config } from '../../core/config.js';
import { RoostError } from '../../core/errors.js';
import type { FileStore, FileStores } from '../../filestore/index.js';
import type { UserService } from '../../users/index.js';
import { assertWriteOrigin, callerOf } from '../auth.js';
import { failureBody } from '../error-handler.js';
import { clientMetadata, libraryRefusal, type TusCall, tusServer } from '../tus-uploads.js';

export interface UploadRouteOptions {
  fileStores: FileStores;
  users: UserService;
  config: Config;
}

/** The checksum extension's algorithms (`Upload-Checksum: <name> <base64>`), by Node's names. */
const CHECKSUMS: Record<string, string> = { sha1: 'sha1', sha256: 'sha256', md5: 'md5' };
/** A chunk with a checksum is read whole before any byte is kept, so it is limited. */
const CHECKSUM_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * A PATCH (or a creation with its first bytes) with `Upload-Checksum`: the body read whole and
 * checked before the library sees it, so a chunk that does not match is not kept (tus checksum
 * extension: 460). Null: no checksum asked; the body streams to the library.
 */
async function checkedBody(request: FastifyRequest): Promise<{ body: Buffer; matches: boolean } | null> {
  const header = request.headers['upload-checksum'];
  if (typeof header !== 'string') return null;
  const [name = '', expected = ''] = header.trim().split(/\s+/);
  const algorithm = CHECKSUMS[name.toLowerCase()];
  if (!algorithm)
    throw new RoostError(
      'malformed',
      'checksum_unsupported',
      `Upload-Checksum takes ${Object.keys(CHECKSUMS).join(', ')}.`,
    );
  const length = Number(request.headers['content-length']);
  if (!Number.isSafeInteger(length) || length > CHECKSUM_CHUNK_BYTES)
    throw new RoostError(
      'too_large',
      'checksum_chunk_too_large',
      `A chunk with Upload-Checksum has a Content-Length of at most ${CHECKSUM_CHUNK_BYTES} bytes.`,
    );
  const chunks: Buffer[] = [];
  for await (const chunk of request.raw) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return { body, matches: createHash(algorithm).update(body).digest('base64') === expected };
}

/** What the library's streams carry at a time: fewer, larger pieces than the socket's 64 KiB. */
const BODY_PIECE_BYTES = 256 * 1024;

/**
 * The request as srvx gives it to the library, but its body in larger pieces: the library reads
 * it as a web stream and turns it back into Node streams, five steps a piece before its bytes
 * reach the disk, each costing about as much per piece whatever its size. What the socket gave
 * in one turn of the event loop (up to 256 KiB) goes as one piece at the end of that turn, so a
 * byte that came is never kept waiting for the next: the offset a HEAD tells is what arrived.
 */
class PiecedRequest extends NodeRequest {
  #body: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#body ??= pieces(this.runtime?.node?.req as IncomingMessage);
    return this.#body;
  }
}

function pieces(source: IncomingMessage): ReadableStream<Uint8Array<ArrayBuffer>> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let flushing: NodeJS.Immediate | undefined;
  let done = false;
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(controller) {
      const flush = () => {
        if (flushing) clearImmediate(flushing);
        flushing = undefined;
        if (heldBytes === 0 || done) return;
        const piece = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held, heldBytes);
        controller.enqueue(piece as Uint8Array<ArrayBuffer>);
        held = [];
        heldBytes = 0;
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      };
      source.on('data', (chunk: Buffer) => {
        held.push(chunk);
        heldBytes += chunk.length;
        if (heldBytes >= BODY_PIECE_BYTES) flush();
        else flushing ??= setImmediate(flush);
      });
      // The body's end, or the client gone mid-body (the library then ends its write with what came).
      finished(source, () => {
        flush();
        if (done) return;
        done = true;
        controller.close();
      });
    },
    pull() {
      source.resume();
    },
    cancel(reason) {
      done = true;
      source.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}

/** A request of the checksum extension, its body read and checked, for the library. */
function bufferedRequest(request: FastifyRequest, body: Buffer): ServerRequest {
  const headers = Object.entries(request.headers).flatMap(([name, value]) =>
    value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]),
  );
  return new Request(new URL(request.url, 'http://roost'), {
    method: request.method,
    headers,
    body: new Uint8Array(body),
  });
}

/** The library's answer through Fastify (the request log, security headers): its body small, a failure's JSON. */
async function sendAnswer(request: FastifyRequest, reply: FastifyReply, response: Response) {
  reply.code(response.status);
  const text = await response.text();
  for (const [header, value] of response.headers) {
    // CORS is Roost's own (http/cors.ts), whatever the library would allow; an empty body has no
    // type (a Response of '' says text/plain).
    const skipped = header.startsWith('access-control-') || header === 'content-length';
    if (skipped || (!text && header === 'content-type')) continue;
    reply.header(header, header === 'upload-metadata' ? clientMetadata(value) : value);
  }
  if (request.method === 'OPTIONS') {
    reply.header('tus-extension', `${response.headers.get('tus-extension') ?? ''},checksum`);
    reply.header('tus-checksum-algorithm', Object.keys(CHECKSUMS).join(','));
  }
  // The protocol's successes say all in headers: no body, so no media type (/openapi.json says none).
  if (response.status < 400) return text ? reply.send(text) : reply.send();
  reply.type('application/json; charset=utf-8');
  if (text.startsWith('{')) return reply.send(text);
  // Some refusals the library writes itself, in words, before any hook of ours (a malformed
  // Upload-Length, a PATCH's wrong Content-Type): Roost's failure body all the same.
  const { code, message } = libraryRefusal(text);
  request.failureCode ??= code;
  return reply.send(failureBody(code, message));
}

/**
 * tus 1.0 at `/<store>/@uploads` (creation, and OPTIONS for discovery) and
 * `/<store>/@uploads/<id>` (HEAD, PATCH, DELETE) for every file store (docs/filestore.md,
 * "Resumable uploads"); the protocol is the library's (http/tus-uploads.ts). `@` names no file
 * (filestore/file-paths.ts), so these never hide one.
 */
export async function registerUploadRoutes(app: FastifyInstance, options: UploadRouteOptions): Promise<void> {
  const { fileStores, users, config } = options;
  // This plugin is encapsulated: its bodies stay unread, for the library to stream.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  const calls = new WeakMap<ServerRequest, TusCall>();

  for (const name of fileStores.names) {
    const store = fileStores.get(name) as FileStore;
    if (!store.uploads) continue;
    const base = `/${name}/@uploads`;
    let server: Promise<Server> | undefined;

    async function handle(request: FastifyRequest, reply: FastifyReply) {
      request.routePattern = request.method === 'POST' || request.method === 'OPTIONS' ? base : `${base}/{id}`;
      const caller = await callerOf(request, users);
      if (request.method !== 'OPTIONS' && request.method !== 'HEAD')
        assertWriteOrigin(request, caller, config.corsOrigins);
      server ??= tusServer(store, base, calls);
      const tus = await server;
      const checked = request.method === 'PATCH' || request.method === 'POST' ? await checkedBody(request) : null;
      if (checked && !checked.matches) {
        request.failureCode = 'checksum_mismatch';
        return reply
          .code(460)
          .header('tus-resumable', '1.0.0')
          .send(failureBody('checksum_mismatch', 'The chunk does not match its Upload-Checksum; it was not kept.'));
      }
      const tusRequest = checked
        ? bufferedRequest(request, checked.body)
        : new PiecedRequest({ req: request.raw, res: reply.raw });
      const call: TusCall = { principal: caller.principal, after: [] };
      calls.set(tusRequest, call);
      const response = await tus.handleWeb(tusRequest).finally(async () => {
        for (const step of call.after) await step();
      });
      // A refusal before the body was read: close the connection rather than read the rest.
      if ((call.failure || response.status >= 400) && !request.raw.complete) reply.header('connection', 'close');
      if (call.failure) throw call.failure;
      if (call.code) request.failureCode = call.code;
      return sendAnswer(request, reply, response);
    }

    app.route({ method: ['POST', 'OPTIONS'], url: base, handler: handle });
    app.route({
      method: ['HEAD', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `${base}/:id`,
      exposeHeadRoute: false,
      handler: handle,
    });
  }
}
