import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { callerOf, withClient } from '../../http/auth.js';
import type { PageDeps } from '../index.js';
import { escapeHtml } from '@roost/forms';
import { textParam } from '../page-kit/page-parts.js';
import { sendHtml } from '../page-kit/page-reply.js';
import { endOf } from './provider-pages.js';
import { renderPublicPage } from './public-page.js';

/**
 * The browser's side of SAML single sign-on (users/signin-methods/saml/saml-ops.ts; docs/users.md,
 * "SAML single sign-on"), beside the providers' (provider-pages.ts):
 *
 * - `GET /users/saml?email=…` (the sign-in page's "sign in with your company"): a page that goes on
 *   to the start of the connection of the address's domain;
 * - `GET /users/saml/<id>/start?redirect=…`: the RelayState into this browser's cookie (only for
 *   `/users/saml`), on to the IdP with the AuthnRequest (HTTP-Redirect binding);
 * - `POST /users/saml/<id>/acs`: the IdP's answer (HTTP-POST binding), checked and kept; on to
 *   `finish` by a 303, since the cookie is SameSite Lax and comes only with that top-level GET;
 * - `GET /users/saml/<id>/finish?relay=…`: the cookie must hold the RelayState; the session, the
 *   second step or the pending account's page, as after a provider (provider-pages.ts `endOf`);
 * - `GET /users/saml/<id>/metadata`: Roost's SP metadata for the IdP's administrators.
 *
 * A refusal is the page of its error (admin/page-kit/page-errors.ts), as a provider's is.
 */

const BASE = '/users/saml';
const RELAY_COOKIE = 'roost_saml_relay';
/** As long as the flow itself (saml-client.ts, REQUEST_LIFETIME_MS). */
const RELAY_COOKIE_SECONDS = 600;

const relayCookie = (request: FastifyRequest) => ({
  path: BASE,
  httpOnly: true,
  // Lax: the 303 after the ACS is a top-level GET, which Lax lets through; the IdP's POST does not carry it.
  sameSite: 'lax' as const,
  secure: request.protocol === 'https',
});

const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
const queryOf = (request: FastifyRequest) => request.query as Record<string, unknown>;

async function domainRoute(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const values = { ...queryOf(request), ...((request.body ?? {}) as Record<string, unknown>) };
  const caller = withClient(await callerOf(request, users), request);
  const { connection, label } = await users.samlConnectionFor(caller, { email: textParam(values.email) });
  const next = new URLSearchParams({ redirect: textParam(values.redirect) || '/users/signin' });
  const url = escapeHtml(`${BASE}/${encodeURIComponent(connection)}/start?${next}`);
  // A page that goes on by itself, not a redirect: the sign-in page's form may not be redirected
  // to the IdP (the pages' CSP `form-action 'self'`, http/security-headers.ts; provider-pages.ts' link form).
  const page = {
    title: 'Sign in with your company',
    head: `<meta http-equiv="refresh" content="0;url=${url}">`,
    body:
      `<div class="card narrow"><p><a class="btn btn-primary" href="${url}">` +
      `Go on to ${escapeHtml(label)}</a></p></div>`,
  };
  reply.header('cache-control', 'no-store');
  return sendHtml(reply, await renderPublicPage(request, reply, users, page));
}

async function startRoute(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const caller = withClient(await callerOf(request, users), request);
  const redirect = textParam(queryOf(request).redirect) || '/users/signin';
  const started = await users.samlStart(caller, { connection: idOf(request), redirect });
  reply.setCookie(RELAY_COOKIE, started.relay, { ...relayCookie(request), maxAge: RELAY_COOKIE_SECONDS });
  reply.header('cache-control', 'no-store');
  return reply.redirect(started.url, 303);
}

async function acsRoute(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const body = (request.body ?? {}) as Record<string, unknown>;
  const caller = withClient(await callerOf(request, users), request);
  const relayState = textParam(body.RelayState);
  const id = idOf(request);
  const { relay } = await users.samlAnswer(caller, {
    connection: id,
    SAMLResponse: textParam(body.SAMLResponse),
    ...(relayState ? { RelayState: relayState } : {}),
  });
  reply.header('cache-control', 'no-store');
  return reply.redirect(`${BASE}/${encodeURIComponent(id)}/finish?${new URLSearchParams({ relay })}`, 303);
}

async function finishRoute(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const caller = withClient(await callerOf(request, users), request);
  const browserRelay = request.cookies[RELAY_COOKIE];
  reply.clearCookie(RELAY_COOKIE, relayCookie(request));
  reply.header('cache-control', 'no-store');
  const relay = textParam(queryOf(request).relay);
  const outcome = await users.samlFinish(caller, {
    connection: idOf(request),
    relay,
    ...(browserRelay ? { browserRelay } : {}),
  });
  return endOf(deps, request, reply, users, outcome);
}

async function metadataRoute(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const xml = await users.samlMetadata(await callerOf(request, users), { connection: idOf(request) });
  return reply.type('application/samlmetadata+xml; charset=utf-8').send(xml);
}

/** The SAML routes, beside the other public pages (index.ts). */
export function registerSamlPages(app: FastifyInstance, deps: PageDeps, limit: onRequestHookHandler): void {
  app.get(BASE, { onRequest: limit }, (request, reply) => domainRoute(deps, request, reply));
  app.post(BASE, { onRequest: limit }, (request, reply) => domainRoute(deps, request, reply));
  app.get(`${BASE}/:id/start`, { onRequest: limit }, (request, reply) => startRoute(deps, request, reply));
  app.post(`${BASE}/:id/acs`, { onRequest: limit }, (request, reply) => acsRoute(deps, request, reply));
  app.get(`${BASE}/:id/finish`, { onRequest: limit }, (request, reply) => finishRoute(deps, request, reply));
  app.get(`${BASE}/:id/metadata`, (request, reply) => metadataRoute(deps, request, reply));
}
