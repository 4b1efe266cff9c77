import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenOf } from '../http/auth.js';

/**
 * Messages for the page after a redirect ("User saved."), kept in a short-lived cookie. The
 * cookie is signed with a key derived from the session token, so no other site (nor a sibling
 * host that can set cookies for this one) can put words on an administrator's page; a cookie
 * that fails the check is dropped.
 */
const FLASH_COOKIE = 'roost_flash';
const MAX_MESSAGES = 5;
const MAX_LENGTH = 300;

function signature(request: FastifyRequest, payload: string): string | null {
  const found = tokenOf(request);
  return found ? createHmac('sha256', `roost-flash\0${found.token}`).update(payload).digest('base64url') : null;
}

/** Keep messages for the next page of this session (nothing without a session). */
export function flash(request: FastifyRequest, reply: FastifyReply, messages: readonly string[]): void {
  const kept = messages.slice(0, MAX_MESSAGES).map((m) => m.slice(0, MAX_LENGTH));
  if (kept.length === 0) return;
  const payload = Buffer.from(JSON.stringify(kept)).toString('base64url');
  const sig = signature(request, payload);
  if (!sig) return;
  reply.setCookie(FLASH_COOKIE, `${payload}.${sig}`, { path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', maxAge: 60 });
}

/** The messages flashed for this page, taken out (the cookie is cleared). */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): string[] {
  const raw = request.cookies[FLASH_COOKIE];
  if (!raw) return [];
  reply.clearCookie(FLASH_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https' });
  const [payload = '', sig = ''] = raw.split('.');
  const expected = signature(request, payload);
  if (!expected || expected.length !== sig.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(sig))) return [];
  try {
    const messages: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return Array.isArray(messages) ? messages.filter((m): m is string => typeof m === 'string').slice(0, MAX_MESSAGES) : [];
  } catch {
    return [];
  }
}
