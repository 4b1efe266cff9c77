import { addValue, type FormRequest, type FormValues } from './form-request.js';

/**
 * Builds a `FormRequest` from a Web `Request` (Node's global `Request`, Deno, Bun, edge
 * runtimes). Parses the query string and a urlencoded or multipart body; files become
 * `UploadedFile`s with their bytes.
 *
 * @example
 * const request = await formRequestFromWeb(new Request(url, { method: 'POST', body: formData }));
 * const form = new HTMLForm({ request, fields });
 */
export async function formRequestFromWeb(request: Request): Promise<FormRequest> {
  const url = new URL(request.url);
  const query: FormValues = {};
  for (const [k, v] of url.searchParams) addValue(query, k, v);
  const headers: Record<string, string> = {};
  request.headers.forEach((v, k) => {
    headers[k] = v;
  });
  const body: FormValues = {};
  const type = request.headers.get('content-type') ?? '';
  if (
    request.method !== 'GET' &&
    request.method !== 'HEAD' &&
    /multipart\/form-data|application\/x-www-form-urlencoded/.test(type)
  ) {
    const data = await request.formData();
    for (const [k, v] of data) {
      if (typeof v === 'string') addValue(body, k, v);
      else if (v.name !== '' || v.size > 0) {
        addValue(body, k, {
          filename: v.name,
          mime: v.type || undefined,
          size: v.size,
          data: new Uint8Array(await v.arrayBuffer()),
        });
      } else addValue(body, k, '');
    }
  }
  return { method: request.method, query, body, headers };
}
