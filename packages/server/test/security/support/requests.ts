import fc from 'fast-check';
import type { WireCall } from './calls.js';
import { anyText, headerText, hostileObject, mutated, NASTY_STRINGS, ODD_CONTENT_TYPES, rawBodies } from './hostile.js';
import { DOWNLOAD, FIELDS, type OperationInfo } from './operations.js';

/**
 * Arbitrary requests for one operation: its values (valid, mutated or wholly hostile), how
 * they travel (JSON, form, query, a raw or oddly typed body, multipart, a raw upload), who
 * sends them (no token, a user's, an administrator's, junk) and, for the file store, the path.
 */

/** Tokens the arbitrary requests may carry; read at send time, since the fixtures can be renewed. */
export interface Credentials {
  user: string;
  admin: string;
}

export type Auth =
  | { kind: 'none' | 'user' | 'admin' | 'user-cookie' | 'user-cookie-cross-site' }
  | { kind: 'junk' | 'junk-bearer' | 'junk-cookie'; text: string };

export const authArbitrary: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Auth>({ kind: 'none' }, { kind: 'user' }, { kind: 'admin' }) },
  { weight: 1, arbitrary: fc.constantFrom<Auth>({ kind: 'user-cookie' }, { kind: 'user-cookie-cross-site' }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constantFrom('junk' as const, 'junk-bearer' as const, 'junk-cookie' as const),
      text: fc.oneof(headerText(), fc.constant('a'.repeat(5000))),
    }),
  },
);

export function authHeaders(auth: Auth, credentials: Credentials): Record<string, string> {
  switch (auth.kind) {
    case 'none':
      return {};
    case 'user':
      return { 'x-auth-token': credentials.user };
    case 'admin':
      return { authorization: `Bearer ${credentials.admin}` };
    case 'user-cookie':
      return { cookie: `auth=${credentials.user}`, 'sec-fetch-site': 'same-origin' };
    case 'user-cookie-cross-site':
      return { cookie: `auth=${credentials.user}`, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' };
    case 'junk':
      return { 'x-auth-token': auth.text };
    case 'junk-bearer':
      return { authorization: `Bearer ${auth.text}` };
    case 'junk-cookie':
      return { cookie: `auth=${auth.text}` };
  }
}

/** How the values travel. */
export type Transport =
  | { kind: 'json' | 'form' | 'query' | 'delete' }
  | { kind: 'raw'; body: string; type: string }
  | { kind: 'odd-type'; type: string }
  | { kind: 'raw-query'; query: string }
  | { kind: 'multipart'; filename: string; partType: string; contents: string; closed: boolean }
  | { kind: 'put'; type: string; contents: string };

const RAW_QUERIES = [
  'key=%ff',
  'key=%ED%A0%80',
  'key=%00',
  'a[b][c]=1',
  'key=1&key=2&key=3',
  '__proto__[admin]=1',
  'constructor[prototype][admin]=1',
  'items[0][key]=k',
  'start=-1&size=1e9',
  'size=99999999999999999999',
  'order=%3C%3E',
  'sort=__proto__',
  '=&&=&',
  '%',
  '%%',
  'a=%zz',
];

export function transportArbitrary(info: OperationInfo): fc.Arbitrary<Transport> {
  const options: fc.Arbitrary<Transport>[] = [
    fc.constant<Transport>({ kind: 'json' }),
    fc.constant<Transport>({ kind: 'json' }),
    fc.constant<Transport>({ kind: 'form' }),
    fc.constant<Transport>({ kind: 'query' }),
    fc.record({
      kind: fc.constant('raw' as const),
      body: rawBodies,
      type: fc.constantFrom('application/json', 'application/x-www-form-urlencoded', ''),
    }),
    fc.record({ kind: fc.constant('odd-type' as const), type: fc.constantFrom(...ODD_CONTENT_TYPES) }),
    fc.record({
      kind: fc.constant('raw-query' as const),
      query: fc.oneof(
        fc.constantFrom(...RAW_QUERIES),
        anyText(30).map((t) =>
          Buffer.from(t)
            .toString('latin1')
            .replace(/[^\x21-\x7e]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`),
        ),
      ),
    }),
  ];
  if (info.del) options.push(fc.constant<Transport>({ kind: 'delete' }));
  if (info.upload) {
    options.push(
      fc.record({
        kind: fc.constant('multipart' as const),
        filename: fc.oneof(fc.constantFrom(...NASTY_STRINGS), headerText(20)),
        partType: fc.constantFrom('text/plain', 'text/html', 'image/svg+xml', 'application/json', '', 'x/y; a=b'),
        contents: fc.oneof(anyText(100), fc.constant('z'.repeat(150_000))),
        closed: fc.boolean(),
      }),
    );
    if (info.op === 'write')
      options.push(
        fc.record({
          kind: fc.constant('put' as const),
          type: fc.constantFrom('text/html', 'application/json', '', 'x', 'multipart/form-data'),
          contents: fc.oneof(anyText(100), fc.constant('y'.repeat(150_000))),
        }),
      );
  }
  return fc.oneof(...options);
}

/** A value as text for a form field or a query parameter. */
const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

function encodeParams(values: Record<string, unknown>, maxValueLength: number): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) {
    const list = Array.isArray(v) ? v : [v];
    for (const member of list) params.append(k, asText(member).slice(0, maxValueLength));
  }
  return params.toString();
}

function multipartBody(
  values: Record<string, unknown>,
  t: Extract<Transport, { kind: 'multipart' }>,
): { type: string; body: Buffer } {
  const boundary = '----roost-property-boundary';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(values))
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${k.replace(/["\r\n]/g, '_')}"\r\n\r\n${asText(v)}\r\n`,
    );
  const type = t.partType ? `\r\nContent-Type: ${t.partType}` : '';
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
      `filename="${t.filename.replace(/["\r\n]/g, '_')}"${type}\r\n\r\n${t.contents}\r\n`,
  );
  if (t.closed) parts.push(`--${boundary}--\r\n`);
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.from(parts.join('')) };
}

/** The wire request for an operation's values. */
export function wireCall(
  path: string,
  values: Record<string, unknown>,
  transport: Transport,
  headers: Record<string, string>,
): WireCall {
  switch (transport.kind) {
    case 'json':
      return {
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(values),
      };
    case 'form':
      return {
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: encodeParams(values, 1_000_000),
      };
    case 'query': {
      // A URL stays under the HTTP parser's 16 KiB header limit (that case has a test of its own).
      const query = encodeParams(values, 500)
        .slice(0, 6000)
        .replace(/%[0-9A-F]?$/i, '');
      return { method: 'GET', path: query ? `${path}?${query}` : path, headers };
    }
    case 'delete':
      return {
        method: 'DELETE',
        path: `${path}?${encodeParams(values, 500)
          .slice(0, 2000)
          .replace(/%[0-9A-F]?$/i, '')}`,
        headers,
      };
    case 'raw':
      return {
        method: 'POST',
        path,
        headers: transport.type ? { ...headers, 'content-type': transport.type } : headers,
        body: transport.body,
      };
    case 'odd-type':
      return {
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': transport.type },
        body: JSON.stringify(values),
      };
    case 'raw-query':
      return { method: 'GET', path: `${path}?${transport.query}`, headers };
    case 'multipart': {
      const { type, body } = multipartBody(values, transport);
      return { method: 'POST', path, headers: { ...headers, 'content-type': type }, body };
    }
    case 'put':
      return {
        method: 'PUT',
        path: `${path}?${encodeParams(values, 200)
          .slice(0, 1000)
          .replace(/%[0-9A-F]?$/i, '')}`,
        headers: transport.type ? { ...headers, 'content-type': transport.type } : headers,
        body: transport.contents,
      };
  }
}

/** Values for one operation: a valid call's (`template`), a mutation of it, or wholly hostile ones. */
export function valuesArbitrary(
  info: OperationInfo,
  template: Record<string, unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  const fields = FIELDS[info.service][info.op] ?? [];
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(template) },
    { weight: 5, arbitrary: mutated(template, fields) },
    { weight: 2, arbitrary: hostileObject(fields) },
  );
}

/** Path segments of the file store, as they go into a URL (already percent-encoded or raw). */
const SEGMENTS = [
  '..',
  '.',
  '',
  '%2e%2e',
  '%2E%2E',
  '%2F',
  '%5C',
  '..%2F..',
  '%00',
  '%ff',
  '%ED%A0%80',
  '%C0%AE',
  '@list',
  '@',
  'api',
  '~',
  'a%20b',
  '%252e',
  'con',
  'a:b',
  '%E2%80%AE',
  '%F4%8F%BF%BF',
  'x'.repeat(300),
  '%25',
];

const encodeBytes = (text: string) => [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

export const segmentArbitrary = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SEGMENTS) },
  { weight: 2, arbitrary: anyText(12).map(encodeBytes) },
  { weight: 2, arbitrary: fc.constantFrom('docs', 'a.txt', 'docs/a.txt', 'missing') },
);

/** The URL path of a file store call: `/<store>[/api]/<segments>[/@<op>]`. */
export function fileStorePathArbitrary(store: string, op: string): fc.Arbitrary<string> {
  return fc
    .tuple(fc.boolean(), fc.array(segmentArbitrary, { maxLength: 5 }), fc.boolean())
    .map(([api, segments, trailingSlash]) => {
      const inner = segments.join('/') + (trailingSlash && segments.length > 0 ? '/' : '');
      const base = `/${store}${api ? '/api' : ''}${inner ? `/${inner}` : ''}`;
      return op === DOWNLOAD ? base : `${base.replace(/\/$/, '')}/@${op}`;
    });
}
