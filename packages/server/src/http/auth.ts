import type { FastifyReply, FastifyRequest } from 'fastify';
import { RoostError } from '../core/errors.js';
import { ANONYMOUS_CALLER, type Caller, type UserService } from '../users/index.js';

/** The cookie `signin` sets (the original's name). */
export const AUTH_COOKIE = 'auth';

export interface RequestCaller extends Caller {
  /** How the token came: a header (never a CSRF risk) or the browser's cookie. */
  via: 'header' | 'cookie' | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Resolved once per request by `callerOf`. */
    roostCaller: Promise<RequestCaller> | null;
  }
}

/**
 * The token of a request: header `x-auth-token` (the original's), `Authorization: Bearer` (a
 * session's token or an API key, `roost_…`: core/api-keys.ts), or the cookie.
 */
export function tokenOf(request: FastifyRequest): { token: string; via: 'header' | 'cookie' } | null {
  const header = request.headers['x-auth-token'];
  if (typeof header === 'string' && header.length > 0) return { token: header, via: 'header' };
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return { token: authorization.slice(7).trim(), via: 'header' };
  const cookie = request.cookies[AUTH_COOKIE];
  if (cookie) return { token: cookie, via: 'cookie' };
  return null;
}

const ANONYMOUS_REQUEST_CALLER: RequestCaller = Object.freeze({ ...ANONYMOUS_CALLER, via: null });

async function resolveCaller(request: FastifyRequest, users: UserService): Promise<RequestCaller> {
  const found = tokenOf(request);
  if (!found) return ANONYMOUS_REQUEST_CALLER;
  const caller = await users.authenticate(found.token);
  // One per request, so not frozen; a literal, not a spread: this runs on every authenticated
  // request (docs/architecture.md, "Speed").
  return caller
    ? {
        principal: caller.principal,
        user: caller.user,
        tokenHash: caller.tokenHash,
        impersonator: caller.impersonator ?? null,
        via: found.via,
      }
    : ANONYMOUS_REQUEST_CALLER;
}

/**
 * Who is calling. An unknown, expired or revoked token makes an anonymous caller: operations
 * open to everyone still work, the others answer 401.
 */
export function callerOf(request: FastifyRequest, users: UserService): Promise<RequestCaller> {
  request.roostCaller ??= resolveCaller(request, users);
  return request.roostCaller;
}

/**
 * CSRF protection for requests a browser authenticates with the cookie: a cross-site page must
 * not be able to act for the user. Fetch Metadata (`Sec-Fetch-Site`) and `Origin` tell where a
 * browser request comes from; configured CORS origins are trusted. A POST (or PUT, DELETE) with
 * neither header does not come from a browser that would attach the cookie on its own: every
 * browser that sends cookies on cross-site posts sends `Origin` with them. A GET does not carry
 * `Origin`, and SameSite=Lax sends the cookie on a cross-site link or redirect; a browser
 * without Fetch Metadata (Safari before 16.4, say) then says nothing about where it came from.
 * So a write by GET needs positive evidence: Fetch Metadata, an own or trusted `Origin`, or a
 * `Referer` from Roost's own origin (an attacker can remove a Referer, never forge one).
 */
export function assertSameOrigin(request: FastifyRequest, trustedOrigins: readonly string[]): void {
  const origin = request.headers.origin;
  if (origin && trustedOrigins.includes(origin)) return;
  const site = request.headers['sec-fetch-site'];
  if (site === 'same-origin' || site === 'none') return;
  if (site === undefined) {
    if (origin !== undefined) {
      if (hostOf(origin) === request.headers.host) return;
    } else if (request.method !== 'GET' && request.method !== 'HEAD') {
      return;
    } else {
      const referer = request.headers.referer;
      if (referer !== undefined && hostOf(referer) === request.headers.host) return;
    }
  }
  throw new RoostError(
    'forbidden',
    'cross_site_request',
    'Cross-site requests authenticated by cookie are not accepted.',
  );
}

/** The host of an Origin or Referer; null when it cannot be parsed (treated as foreign). */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/**
 * The end of every sign-in that sets the cookie (`signin`, `signin2`, `passkeySignin`, the sign-in
 * pages, mail and provider sign-ins, the setup page): the session the request's own `auth` cookie
 * carried, if it is still valid, is ended, and the new session's token goes into the cookie (OWASP
 * ASVS 5.0, 7.2.4: a new token at each authentication, the current one terminated). The browser
 * holds one cookie, so the old session could only linger unseen. Sign-ins that answer the token
 * (`token`, `token2`, `passkeyToken`, `signinMail2`, `signinProvider2`) end nothing: a connector
 * may hold several tokens on purpose, and ends each with `signout` (docs/security.md).
 */
export async function startCookieSession(
  request: FastifyRequest,
  reply: FastifyReply,
  users: UserService,
  token: string,
  maxAgeSeconds: number,
): Promise<void> {
  const carried = request.cookies[AUTH_COOKIE];
  // Every caller passes a session it has just made, so the carried one is never it (and tokens
  // are compared nowhere with ===: test/security/secret-comparisons.test.ts).
  if (carried) await users.endSession(carried);
  setAuthCookie(request, reply, token, maxAgeSeconds);
}

function setAuthCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  reply.setCookie(AUTH_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: maxAgeSeconds,
  });
}

/**
 * Where the administrator's own session waits while their browser holds an impersonation
 * (users/impersonation-ops.ts): HttpOnly like `auth`, back in `auth` when it ends.
 */
const IMPERSONATOR_COOKIE = 'auth_admin';

/** The options of the session cookies that are not `auth` itself (its life is the session's). */
const sideCookie = (request: FastifyRequest) =>
  ({ path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https' }) as const;

/** The browser now holds the impersonation's session; its own session is kept aside, not ended. */
export function startImpersonationCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
): void {
  const own = request.cookies[AUTH_COOKIE];
  if (own) reply.setCookie(IMPERSONATOR_COOKIE, own, sideCookie(request));
  setAuthCookie(request, reply, token, maxAgeSeconds);
  // The rest of this answer is for the session the browser holds from now on: the flash cookie
  // is signed with it (admin/page-kit/page-reply.ts).
  request.cookies[AUTH_COOKIE] = token;
}

/** The administrator's own session back in the browser after an impersonation; false when none was kept. */
export function endImpersonationCookies(request: FastifyRequest, reply: FastifyReply): boolean {
  const own = request.cookies[IMPERSONATOR_COOKIE];
  reply.clearCookie(IMPERSONATOR_COOKIE, sideCookie(request));
  if (!own) {
    clearAuthCookie(request, reply);
    return false;
  }
  reply.setCookie(AUTH_COOKIE, own, sideCookie(request));
  request.cookies[AUTH_COOKIE] = own; // as in startImpersonationCookies
  return true;
}

export function clearAuthCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(AUTH_COOKIE, sideCookie(request));
}

/**
 * A write's CSRF check: only a request the browser authenticated by itself (the cookie) can be
 * forged by another site; a token in a header never is. Every route module calls this for its
 * writes, so the rule lives here once.
 */
export function assertWriteOrigin(
  request: FastifyRequest,
  caller: RequestCaller,
  trustedOrigins: readonly string[],
): void {
  if (caller.via === 'cookie') assertSameOrigin(request, trustedOrigins);
}

/**
 * The caller with the client's address and User-Agent: sign-in throttles by the address
 * (users/signin-throttle.ts), and a session keeps both (users/sessions.ts). And the solved
 * proof-of-work challenge the client sent, for sign-ups, sign-ins and resets under attack
 * (users/proof-of-work.ts): the `X-Roost-Proof` header of API calls, or the `altcha` field the
 * ALTCHA widget adds to a page's form. And the token of a device the account trusts (the
 * `X-Roost-Trusted-Device` header or the pages' cookie; users/trusted-devices.ts).
 */
export function withClient<C extends Caller>(caller: C, request: FastifyRequest): C {
  const agent = request.headers['user-agent'];
  const proof = proofOf(request);
  const trusted = request.headers['x-roost-trusted-device'] ?? request.cookies[TRUSTED_DEVICE_COOKIE];
  return {
    ...caller,
    address: request.ip,
    ...(agent ? { device: agent.slice(0, 200) } : {}),
    ...(proof ? { proof } : {}),
    ...(typeof trusted === 'string' && trusted ? { trustedDevice: trusted } : {}),
  };
}

/** Where a browser keeps the token of a device its account trusts (users/trusted-devices.ts). */
const TRUSTED_DEVICE_COOKIE = 'roost_trusted_device';

/** Keeps a trusted device's token in the browser, HttpOnly, until it expires. */
export function setTrustedDeviceCookie(request: FastifyRequest, reply: FastifyReply, token: string, days: number) {
  reply.setCookie(TRUSTED_DEVICE_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: days * 24 * 3600,
  });
}

function proofOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-roost-proof'];
  if (typeof header === 'string') return header;
  const field = (request.body as { altcha?: unknown } | null | undefined)?.altcha;
  return typeof field === 'string' ? field : undefined;
}
