import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FormResponse } from '@roost/forms';
import { tokenOf } from '../../http/auth.js';

/**
 * Answers of the pages: HTML that no cache keeps, the form library's own responses (redirects,
 * ajax replies), and messages flashed across a redirect (post, redirect, get) in a short-lived
 * cookie. Flashed text is only ever shown escaped.
 */
const FLASH_COOKIE = 'roost_flash';
const FLASH_MAX_CHARS = 1500;

export function sendHtml(reply: FastifyReply, html: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}

/**
 * The flash cookie's signature: an HMAC keyed by the session token, so while someone is signed
 * in no other site (nor a sibling host that can set cookies here) can put words on their pages.
 * Without a session (the public pages) messages travel unsigned, and are shown only to a
 * browser without a session.
 */
function flashSignature(request: FastifyRequest, payload: string): string | null {
  const found = tokenOf(request);
  return found ? createHmac('sha256', `roost-flash\0${found.token}`).update(payload).digest('base64url') : null;
}

/** Keep `messages` for the next page this browser loads. */
export function flash(request: FastifyRequest, reply: FastifyReply, messages: readonly string[]): void {
  const kept: string[] = [];
  let chars = 0;
  for (const m of messages) {
    const text = m.length > 300 ? `${m.slice(0, 299)}…` : m;
    if (chars + text.length > FLASH_MAX_CHARS) break;
    kept.push(text);
    chars += text.length;
  }
  if (kept.length === 0) return;
  const payload = Buffer.from(JSON.stringify(kept)).toString('base64url');
  const signature = flashSignature(request, payload);
  reply.setCookie(FLASH_COOKIE, signature ? `${payload}.${signature}` : payload, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: 60,
  });
}

/** The messages flashed for this page (and forget them); a cookie that fails the signature check shows nothing. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): string[] {
  const raw = request.cookies[FLASH_COOKIE];
  if (!raw) return [];
  reply.clearCookie(FLASH_COOKIE, { path: '/' });
  const [payload = '', given] = raw.split('.');
  const expected = flashSignature(request, payload);
  if (
    expected === null
      ? given !== undefined
      : given === undefined ||
        given.length !== expected.length ||
        !timingSafeEqual(Buffer.from(given), Buffer.from(expected))
  )
    return [];
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return Array.isArray(parsed) ? parsed.filter((m): m is string => typeof m === 'string').slice(0, 10) : [];
  } catch {
    return [];
  }
}

/** Send what the form decided (a redirect flashes its messages). */
export function sendFormResponse(request: FastifyRequest, reply: FastifyReply, response: FormResponse): FastifyReply {
  if (response.messages?.length && response.location) flash(request, reply, response.messages);
  reply.code(response.status).header('cache-control', 'no-store');
  for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  return reply.send(response.body);
}
