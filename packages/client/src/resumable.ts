import { errorFromAnswer, RoostError } from './errors.js';
import type { Progress } from './filestore-types.js';
import type { DoneAnswer } from './shared-types.js';
import type { Transport } from './transport.js';

/** A resumable upload of `file` to `path` of the file store `store` (`FileStore.upload` with `resumable`). */
export interface ResumableRequest {
  store: string;
  path: string;
  file: Blob;
  mime: string | undefined;
  onProgress: ((progress: Progress) => void) | undefined;
  signal: AbortSignal | undefined;
  /** Bytes per PATCH; the whole rest in one when not given. */
  chunkSize: number | undefined;
}

/**
 * Up to this size a file goes whole in the request that makes the upload (tus's
 * creation-with-upload): one request instead of two, so a small file goes about as fast as a plain
 * upload (bench/RESULTS.md, "Resumable uploads"). A connection dropped during that request leaves
 * the client no upload to resume, so the file starts again: at most this much sent twice.
 */
const WHOLE_IN_CREATION_BYTES = 4 * 1024 * 1024;

/** The failure of a tus request as a RoostError: the server's failure body when it sent one. */
function failureOf(err: unknown): RoostError {
  const response = (err as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
  if (response) {
    try {
      return errorFromAnswer('upload', response.getStatus(), JSON.parse(response.getBody()) as Record<string, unknown>);
    } catch {
      return errorFromAnswer('upload', response.getStatus(), {});
    }
  }
  const detail = err instanceof Error ? err.message : String(err);
  return new RoostError(`The upload failed: ${detail}`, { code: 'network_error', operation: 'upload' });
}

/**
 * `file` sent by the tus protocol (docs/filestore.md, "Resumable uploads") through
 * tus-js-client, loaded on first use: a dropped connection is retried from the offset the server
 * kept, and in a browser an upload of the same file to the same path after a page reload goes
 * on where the last one stopped (tus-js-client keeps its URL in localStorage, under a
 * fingerprint of the file, the store and the path). In Node, tus-js-client takes bytes, not a
 * Blob: the Blob is read into memory first.
 */
export async function resumableUpload(transport: Transport, request: ResumableRequest): Promise<DoneAnswer> {
  const tus = await import('tus-js-client');
  const { file } = request;
  const inNode = typeof window === 'undefined' && typeof globalThis.Buffer === 'function';
  const source = inNode ? globalThis.Buffer.from(await file.arrayBuffer()) : file;
  const target = `${request.store}/${request.path.replace(/^\/+/, '')}`;
  return new Promise<DoneAnswer>((resolve, reject) => {
    const upload = new tus.Upload(source, {
      endpoint: transport.url(`/${encodeURIComponent(request.store)}/@uploads`),
      metadata: { path: request.path, ...(request.mime ? { filetype: request.mime } : {}) },
      uploadSize: file.size,
      ...(request.chunkSize ? { chunkSize: request.chunkSize } : {}),
      uploadDataDuringCreation: file.size <= Math.min(WHOLE_IN_CREATION_BYTES, request.chunkSize ?? Infinity),
      retryDelays: [0, 1000, 3000, 5000, 10_000],
      removeFingerprintOnSuccess: true,
      fingerprint: async (f, options) => `${await tus.defaultOptions.fingerprint(f, options)}-roost:${target}`,
      // The token of each request, as every call of the connector sends it (it may change meanwhile).
      onBeforeRequest: (req) => {
        for (const [name, value] of Object.entries(transport.headers())) req.setHeader(name, value);
      },
      onProgress: (loaded, total) => request.onProgress?.({ loaded, total }),
      onSuccess: () => resolve({ result: true } as DoneAnswer),
      onError: (err) => reject(failureOf(err)),
    });
    request.signal?.addEventListener(
      'abort',
      () => {
        void upload.abort();
        reject(new RoostError('The upload was aborted.', { code: 'aborted', operation: 'upload' }));
      },
      { once: true },
    );
    void upload.findPreviousUploads().then((previous) => {
      if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    }, reject);
  });
}
