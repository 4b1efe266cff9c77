import { PASSWORD, type TestServer } from './test-server.js';

/** A page as fetched: status, HTML, headers (redirects are not followed). */
export interface PageResult {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

/** The `auth` cookie of a signed-in user (through the API's `signin`), as a Cookie header value. */
export async function authCookie(s: TestServer, identity: string, password = PASSWORD): Promise<string> {
  const res = await fetch(`${s.url}/users/api/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity, password }),
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error(`no auth cookie for ${identity}: ${await res.text()}`);
  return cookie;
}

export async function getPage(s: TestServer, path: string, cookie?: string): Promise<PageResult> {
  const res = await fetch(s.url + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get('location') };
}

/** The CSRF token in a page's forms. */
export function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no csrf field on the page');
  return match[1];
}

export interface PostOptions {
  cookie?: string;
  headers?: Record<string, string>;
  /** Send urlencoded fields instead of multipart (what a plain HTML form without the library's enctype sends). */
  urlencoded?: boolean;
}

/** POST form fields (multipart, as the pages' forms do; a Blob value is a file part). */
export async function postForm(
  s: TestServer,
  path: string,
  fields: Record<string, string | Blob | { name: string; blob: Blob }>,
  options: PostOptions = {},
): Promise<PageResult> {
  let body: FormData | URLSearchParams;
  if (options.urlencoded) {
    body = new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } else {
    body = new FormData();
    for (const [k, v] of Object.entries(fields)) {
      if (typeof v === 'string') body.append(k, v);
      else if (v instanceof Blob) body.append(k, v, 'upload.bin');
      else body.append(k, v.blob, v.name);
    }
  }
  const res = await fetch(s.url + path, {
    method: 'POST',
    redirect: 'manual',
    body,
    headers: { ...(options.cookie ? { cookie: options.cookie } : {}), ...options.headers },
  });
  return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get('location') };
}

/** Headers a browser sends with a form posted from another site. */
export const CROSS_SITE = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } as const;

/** The text of a page's messages and errors, tags dropped (for asserting what a person reads). */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}
