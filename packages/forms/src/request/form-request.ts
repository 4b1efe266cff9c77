/**
 * An uploaded file as the host parsed it. `data` holds the bytes; hosts that stream to disk may
 * leave it out and set `path` instead.
 *
 * @example
 * const upload: UploadedFile = { filename: 'cv.pdf', mime: 'application/pdf', size: 1024, data: bytes };
 */
export interface UploadedFile {
  filename: string;
  mime?: string;
  size: number;
  data?: Uint8Array;
  path?: string;
  /** The field id the file was uploaded for (set by `convertFileUpload`). */
  filekey?: string;
  /** True while the file is not stored yet. */
  tempfile?: boolean;
  /** The token of an upload kept for the next submit (request/upload-stash.ts). */
  kept?: string;
}

/** One request value: repeated keys become arrays. */
export type FormValue = string | UploadedFile | Array<string | UploadedFile>;

/** Request values by name, as produced from a query string, a urlencoded or a multipart body. */
export type FormValues = Record<string, FormValue | undefined>;

/**
 * The request abstraction of the library. A Fastify handler, a node:http handler or a test builds
 * one; the library never touches a server framework.
 *
 * - `query`: values of the query string (GET values);
 * - `body`: values of a urlencoded or multipart body, files included (POST values);
 * - `values`: a plain dict used as is whatever the form's method (handy in tests and for
 *   programmatic use); when set, `query` and `body` are ignored;
 * - `headers`: lower-case names; `x-requested-with: XMLHttpRequest` marks an ajax request.
 *
 * @example
 * const request: FormRequest = { method: 'POST', body: { title: 'Hello', save$: 'save$' }, headers: {} };
 */
export interface FormRequest {
  method?: string;
  query?: FormValues;
  body?: FormValues;
  values?: FormValues;
  headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** Which request values a lookup reads: `POST` body only, `GET` query only, `ALL`/`ANY` both (POST wins). */
export type ValueSource = 'POST' | 'GET' | 'ALL' | 'ANY' | (string & {});

/**
 * The values of a request for a form method.
 *
 * @example
 * requestValues({ query: { a: '1' }, body: { b: '2' } }, 'ANY'); // { a: '1', b: '2' }
 */
export function requestValues(request: FormRequest | undefined, method: ValueSource): FormValues {
  if (!request) return {};
  if (request.values) return request.values;
  const m = method.toUpperCase();
  if (m === 'POST') return { ...request.body };
  if (m === 'GET') return { ...request.query };
  return { ...request.query, ...request.body };
}

/**
 * True for requests sent by script (`X-Requested-With: XMLHttpRequest`).
 *
 * @example
 * isXhr({ headers: { 'x-requested-with': 'XMLHttpRequest' } }); // true
 */
export function isXhr(request: FormRequest | undefined): boolean {
  const h = request?.headers?.['x-requested-with'];
  const v = Array.isArray(h) ? h[0] : h;
  return typeof v === 'string' && v.toLowerCase() === 'xmlhttprequest';
}

/**
 * True when a value is an uploaded file.
 *
 * @example
 * isUploadedFile({ filename: 'a.txt', size: 1 }); // true
 */
export function isUploadedFile(value: unknown): value is UploadedFile {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as UploadedFile).filename === 'string'
  );
}

/**
 * Appends a value under a key, turning repeated keys into arrays.
 *
 * @example
 * const values: FormValues = {}; addValue(values, 'tag', 'a'); addValue(values, 'tag', 'b'); // { tag: ['a', 'b'] }
 */
export function addValue(values: FormValues, key: string, value: string | UploadedFile): void {
  const prev = values[key];
  if (prev === undefined) values[key] = value;
  else if (Array.isArray(prev)) prev.push(value);
  else values[key] = [prev, value];
}
