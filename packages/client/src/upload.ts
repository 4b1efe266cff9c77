import type { Contents, Progress } from './filestore-types.js';
import type { Answer, Deadline, Transport } from './transport.js';

const CHUNK = 64 * 1024;

export interface UploadRequest {
  operation: string;
  path: string;
  contents: Contents;
  mime: string;
  onProgress?: ((progress: Progress) => void) | undefined;
}

/**
 * Send `contents` as the raw body of a PUT and read the JSON answer.
 *
 * `fetch` reports no upload progress, so with `onProgress`:
 * - in a browser the upload goes through `XMLHttpRequest`, whose `upload.onprogress` counts
 *   the bytes the network has taken (a stream is read into a Blob first: browsers stream
 *   request bodies only over HTTP/2);
 * - elsewhere (Node) the body is a stream handing out 64 KiB pieces, and progress counts the
 *   pieces the network layer has pulled (sent chunked, without a Content-Length).
 * Each piece of progress restarts the timeout, so only a stalled upload times out.
 */
export async function upload(transport: Transport, request: UploadRequest, deadline: Deadline): Promise<Answer> {
  const { operation, path, contents, mime, onProgress } = request;
  const headers = { 'content-type': mime };
  const progress = onProgress
    ? (p: Progress) => {
        deadline.touch();
        onProgress(p);
      }
    : undefined;
  if (progress && typeof XMLHttpRequest === 'function') {
    const body = contents instanceof ReadableStream ? await new Response(contents).blob() : contents;
    return sendWithXhr(transport, request, body, headers, deadline, progress);
  }
  let body: BodyInit = asBody(contents);
  if (progress)
    body = pieces(contents instanceof ReadableStream ? contents : new Blob([asBody(contents) as BlobPart]), progress);
  const streamed = body instanceof ReadableStream;
  const response = await transport.send(
    operation,
    path,
    { method: 'PUT', body, headers, ...(streamed ? { duplex: 'half' as const } : {}) },
    deadline,
  );
  return transport.answer(operation, response, deadline);
}

/** Text as UTF-8; views and buffers as their bytes; Blobs and streams as they are. */
function asBody(contents: Contents): BodyInit {
  if (
    typeof contents === 'string' ||
    contents instanceof Blob ||
    contents instanceof ReadableStream ||
    contents instanceof ArrayBuffer
  )
    return contents;
  return bytesOf(contents);
}

/**
 * The bytes a view shows, as the body types want them (typed for
 * an ArrayBuffer: a view of a SharedArrayBuffer cannot be sent).
 */
function bytesOf(view: ArrayBufferView): Uint8Array<ArrayBuffer> {
  return new Uint8Array(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength);
}

/** `source` as a stream of at most 64 KiB pieces, telling `progress` how much was pulled. */
function pieces(
  source: Blob | ReadableStream<Uint8Array>,
  progress: (p: Progress) => void,
): ReadableStream<Uint8Array> {
  const total = source instanceof Blob ? source.size : undefined;
  const reader = (source instanceof Blob ? source.stream() : source).getReader();
  let loaded = 0;
  let rest: Uint8Array | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!rest || rest.byteLength === 0) {
        const next = await reader.read();
        if (next.done) {
          controller.close();
          return;
        }
        rest = next.value;
      }
      const piece = rest.subarray(0, CHUNK);
      rest = rest.subarray(piece.byteLength);
      loaded += piece.byteLength;
      controller.enqueue(piece);
      progress({ loaded, total });
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function sendWithXhr(
  transport: Transport,
  request: UploadRequest,
  body: Exclude<Contents, ReadableStream<Uint8Array>>,
  headers: Record<string, string>,
  deadline: Deadline,
  progress: (p: Progress) => void,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', transport.url(request.path));
    for (const [name, value] of Object.entries(transport.headers(headers))) xhr.setRequestHeader(name, value);
    xhr.withCredentials = transport.options.credentials === 'include';
    xhr.upload.onprogress = (event) =>
      progress({ loaded: event.loaded, total: event.lengthComputable ? event.total : undefined });
    const abort = () => xhr.abort();
    deadline.signal.addEventListener('abort', abort, { once: true });
    const fail = (cause: unknown) => reject(deadline.failure(request.operation, cause, transport.options.baseUrl));
    xhr.onerror = () => fail(new Error('the connection failed'));
    xhr.onabort = () => fail(deadline.signal.reason ?? new Error('aborted'));
    xhr.onload = () => {
      deadline.signal.removeEventListener('abort', abort);
      try {
        resolve(transport.parseAnswer(request.operation, xhr.status, xhr.responseText));
      } catch (err) {
        reject(err);
      }
    };
    xhr.send(typeof body === 'string' || body instanceof Blob || body instanceof ArrayBuffer ? body : bytesOf(body));
  });
}
