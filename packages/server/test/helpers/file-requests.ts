import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Requests the file store tests need beyond `TestServer.request`: a path sent exactly as
 * written (fetch would normalise `..` and encodings away), and bodies streamed from a
 * generator (so a test never holds a large file in memory).
 */
export interface RawResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // Whatever the server answered; each test asserts the members it needs.
  // biome-ignore lint/suspicious/noExplicitAny: (the reason above)
  body: any;
}

export function rawRequest(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer | Readable } = {},
): Promise<RawResult> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const body = options.body;
    if (body instanceof Readable) body.pipe(req);
    else req.end(body);
  });
}

/** `total` bytes of a repeating pattern, produced chunk by chunk. */
export function generatedBody(total: number, chunkSize = 256 * 1024): Readable {
  const chunk = Buffer.alloc(chunkSize);
  for (let i = 0; i < chunkSize; i++) chunk[i] = i % 251;
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const n = Math.min(chunkSize, total - sent);
      sent += n;
      this.push(n === chunkSize ? chunk : chunk.subarray(0, n));
    },
  });
}

/** Bytes that differ at every offset (a chunk shifted or kept twice shows), the same for a `seed`. */
export function patternedBytes(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x >> 16;
  }
  return out;
}

/**
 * A tus PATCH (docs/filestore.md, "Resumable uploads") from `offset`, announcing every byte of
 * `whole` to its end, of which only those up to `upTo` are written: the request stays open,
 * mid-body, until the caller ends or destroys it (or the server dies). `answer` resolves with
 * the status once the server answers (0: the connection failed first).
 */
export function openTusPatch(
  base: string,
  token: string,
  location: string,
  whole: Buffer,
  offset: number,
  upTo: number,
) {
  const url = new URL(base + location);
  let answered: (status: number) => void = () => {};
  const answer = new Promise<number>((resolve) => {
    answered = resolve;
  });
  const req = httpRequest(
    {
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'PATCH',
      headers: {
        'tus-resumable': '1.0.0',
        'content-type': 'application/offset+octet-stream',
        'x-auth-token': token,
        'upload-offset': String(offset),
        'content-length': String(whole.length - offset),
      },
    },
    (res) => {
      res.resume();
      answered(res.statusCode ?? 0);
    },
  );
  req.on('error', () => answered(0));
  const written = new Promise<void>((resolve) => req.write(whole.subarray(offset, upTo), () => resolve()));
  return { req, written, answer };
}

const TUS = { 'tus-resumable': '1.0.0' };

/** tus's `Upload-Metadata`: each value base64 after its key. */
export const tusMetadata = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');

/**
 * The three tus requests of a resumable upload (docs/filestore.md, "Resumable uploads") to the
 * server at `baseUrl()` (asked at each call: test files start their server in `before`), as
 * `token` (none: `null`): the creation in `store`, a PATCH from `offset`, and the HEAD that
 * tells where an upload stands; each answer read whole.
 */
export function tusCalls(baseUrl: () => string) {
  const auth = (token: string | null): Record<string, string> => (token ? { 'x-auth-token': token } : {});
  return {
    async create(token: string | null, store: string, headers: Record<string, string>, body?: Buffer) {
      const res = await fetch(`${baseUrl()}/${store}/@uploads`, {
        method: 'POST',
        headers: { ...TUS, ...auth(token), ...headers },
        ...(body ? { body: new Uint8Array(body) } : {}),
      });
      const text = await res.text();
      return {
        status: res.status,
        location: res.headers.get('location') ?? '',
        headers: res.headers,
        body: text ? JSON.parse(text) : null,
      };
    },

    async patch(token: string | null, location: string, offset: number, body: Buffer, headers = {}) {
      const res = await fetch(baseUrl() + location, {
        method: 'PATCH',
        headers: {
          ...TUS,
          'content-type': 'application/offset+octet-stream',
          ...auth(token),
          'upload-offset': String(offset),
          ...headers,
        },
        body: new Uint8Array(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        offset: Number(res.headers.get('upload-offset')),
        body: text ? JSON.parse(text) : null,
      };
    },

    async head(token: string | null, location: string) {
      const res = await fetch(baseUrl() + location, { method: 'HEAD', headers: { ...TUS, ...auth(token) } });
      return {
        status: res.status,
        offset: Number(res.headers.get('upload-offset')),
        length: res.headers.get('upload-length'),
      };
    },
  };
}
