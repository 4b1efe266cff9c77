import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { isRoostError } from '../../core/errors.js';
import { callerOf, startCookieSession, withClient } from '../../http/auth.js';
import { escapeHtml } from '@roost/forms';
import type { ProviderOutcome, ProviderStart, UserService } from '../../users/index.js';
import { isLocalRedirect } from '../../users/index.js';
import { assertCsrf } from '../csrf.js';
import type { PageDeps } from '../index.js';
import { readFormRequest } from '../page-kit/page-body.js';
import { textParam } from '../page-kit/page-parts.js';
import { flash, sendHtml } from '../page-kit/page-reply.js';
import { pendingChallenge, secondStep } from '../pages/second-step-form.js';
import { safeNext } from '../pages/signin-pages.js';
import { publicFormRequest, renderPublicPage } from './public-page.js';

/**
 * The browser's side of a provider sign-in (users/provider-ops.ts): `/users/providers/<id>/start`
 * sends the browser to the provider, `/users/providers/<id>/callback` is where the provider
 * sends it back (or posts its answer, Apple), and a POST of `/users/providers/<id>/link` (the
 * account page's form, with the session's CSRF token and the password or a current code again)
 * starts linking the provider to the signed-in account. The state of a
 * started sign-in goes into a cookie of this browser only for the callback's path, so only the
 * browser that started it can end it. A sign-in that began on Roost's pages ends with the
 * session cookie; one that began in an app goes back to the app's address with `roost_signin` (a
 * one-time grant for `signinProvider2`), `roost_pending` or `roost_error`.
 */

const BASE = '/users/providers';
const STATE_COOKIE = 'roost_provider_state';
/** As long as the flow itself (users/provider-ops.ts, FLOW_LIFETIME_MS). */
const STATE_COOKIE_SECONDS = 600;

const stateCookie = (request: FastifyRequest) => ({
  path: BASE,
  httpOnly: true,
  // Lax: the provider's redirect back is a top-level GET from another site, which Lax lets through.
  sameSite: 'lax' as const,
  secure: request.protocol === 'https',
});

/** The app's address with one parameter added (its own query kept). */
function appAddress(redirect: string, name: string, value: string): string {
  const url = new URL(redirect);
  url.searchParams.set(name, value);
  return url.href;
}

const PENDING_WORDS = {
  review: 'Your account is made and waits for an administrator to review it. You will get a mail once it is open.',
  optin: 'Your account is made. We have sent you a mail: follow its link to activate the account.',
} as const;

/** Starts a sign-in or a link: the flow's state into this browser's cookie; the provider's address. */
async function started(
  deps: PageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  input: Omit<ProviderStart, 'provider'>,
): Promise<string> {
  const users = deps.services.users;
  const caller = await callerOf(request, users);
  const provider = (request.params as { id: string }).id;
  const flow = await users.signinProvider(withClient(caller, request), { ...input, provider });
  reply.setCookie(STATE_COOKIE, flow.state, { ...stateCookie(request), maxAge: STATE_COOKIE_SECONDS });
  reply.header('cache-control', 'no-store');
  return flow.url;
}

async function startRoute(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const redirect = textParam((request.query as Record<string, unknown>).redirect) || '/users/signin';
  let url: string;
  try {
    url = await started(deps, request, reply, { redirect });
  } catch (err) {
    // An app's sign-in ends at the app, as docs/users.md says, also when the provider cannot be
    // reached before the browser went there. `provider_unavailable` comes only after the domain
    // accepted `redirect` as an app's address (users/provider-ops.ts, `signinProvider`).
    if (isRoostError(err) && err.code === 'provider_unavailable' && !isLocalRedirect(redirect)) {
      reply.header('cache-control', 'no-store');
      return reply.redirect(appAddress(redirect, 'roost_error', err.code), 303);
    }
    throw err;
  }
  return reply.redirect(url, 303);
}

/**
 * The account page's form to link a provider: the session's CSRF token and the password or a
 * current code (users/provider-ops.ts checks it: a session alone must not bind a way in). The
 * answer is a page that goes on to the provider by itself: the pages' CSP lets forms reach Roost
 * only (`form-action 'self'`, http/security-headers.ts), which also blocks a form's redirect to
 * the provider, but not a refresh of the page the form answered.
 */
async function linkRoute(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const form = await publicFormRequest(request, reply, {
    fieldBytes: deps.config.bodyLimit,
    trustedOrigins: deps.config.corsOrigins,
  });
  const body = form.body ?? {};
  assertCsrf(request, body.csrf);
  const code = textParam(body.code);
  const password = textParam(body.password);
  // None for an anonymous account, which has no other way in (users/user-context.ts `reauthenticate`).
  const proof = code ? { code } : password ? { password } : {};
  const url = escapeHtml(await started(deps, request, reply, { redirect: '/users/account', link: true, ...proof }));
  const page = {
    title: 'Linking',
    head: `<meta http-equiv="refresh" content="0;url=${url}">`,
    body: `<div class="card narrow"><p><a class="btn btn-primary" href="${url}">Go on to the provider</a></p></div>`,
  };
  return sendHtml(reply, await renderPublicPage(request, reply, deps.services.users, page));
}

async function callbackRoute(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const caller = withClient(await callerOf(request, users), request);
  const id = (request.params as { id: string }).id;
  const url = request.raw.url ?? '';
  // Everything after the first `?`: a value may hold a `?` of its own.
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const browserState = request.cookies[STATE_COOKIE] ?? null;
  reply.clearCookie(STATE_COOKIE, stateCookie(request));
  reply.header('cache-control', 'no-store');
  const outcome = await users.finishProvider(caller, { provider: id, query, browserState });
  return endOf(deps, request, reply, users, outcome);
}

/** The fields of a provider's answer that the callback reads (the ID token comes again from the token request). */
const ANSWER_FIELDS = ['code', 'state', 'error', 'error_description', 'iss'] as const;

/**
 * A provider that posts its answer (`response_mode=form_post`: Sign in with Apple). The state's
 * cookie is SameSite Lax, which a POST from the provider's site does not carry, so the answer
 * goes on to the GET callback as its query (a 303: a top-level GET carries the cookie), where
 * the state is checked as for every provider. This route changes nothing itself.
 */
async function postedCallbackRoute(request: FastifyRequest, reply: FastifyReply) {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const query = new URLSearchParams();
  for (const field of ANSWER_FIELDS) {
    const value = body[field];
    if (typeof value === 'string' && value.length <= 4000) query.set(field, value);
  }
  const id = (request.params as { id: string }).id;
  reply.header('cache-control', 'no-store');
  return reply.redirect(`${BASE}/${encodeURIComponent(id)}/callback?${query}`, 303);
}

/**
 * Where the browser goes after the provider (or a SAML identity provider, saml-pages.ts): the
 * session, the app, a page that says what comes next.
 */
export async function endOf(
  deps: PageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  users: UserService,
  outcome: ProviderOutcome,
) {
  const local = isLocalRedirect(outcome.redirect);
  switch (outcome.kind) {
    case 'session':
      await startCookieSession(request, reply, users, outcome.session.token, deps.config.users.tokenLifetimeSeconds);
      // A path as the sign-in page sends one on (signin-pages.ts): local, and ASCII for the header.
      return reply.redirect(safeNext(outcome.redirect, 'user'), 303);
    case 'grant':
      return reply.redirect(appAddress(outcome.redirect, 'roost_signin', outcome.grant), 303);
    case 'linked':
      flash(request, reply, ['The provider is linked: you can sign in with it.']);
      return reply.redirect(safeNext(outcome.redirect, 'user'), 303);
    case 'pending': {
      if (!local) return reply.redirect(appAddress(outcome.redirect, 'roost_pending', outcome.reason), 303);
      const page = {
        title: 'Almost there',
        body: `<div class="card narrow"><p>${PENDING_WORDS[outcome.reason]}</p></div>`,
      };
      return sendHtml(reply, await renderPublicPage(request, reply, users, page));
    }
    case 'failed':
      if (!local) return reply.redirect(appAddress(outcome.redirect, 'roost_error', outcome.error.code), 303);
      throw outcome.error;
    case 'challenge': {
      const pending = pendingChallenge(outcome.error);
      if (!pending) throw outcome.error;
      const form = await readFormRequest(request, reply, {
        fieldBytes: deps.config.bodyLimit,
        fileBytes: 0,
        uploadDir: '',
      });
      const caller = await callerOf(request, users);
      const step = await secondStep({
        users,
        request,
        caller,
        form,
        action: '/users/signin',
        pending,
        next: outcome.redirect,
      });
      const body = step.kind === 'form' ? step.html : '<p>The sign-in took too long: start again.</p>';
      const page = {
        title: 'Sign in',
        body: `<div class="card narrow">${body}</div>`,
        head: step.kind === 'form' ? step.head : '',
      };
      return sendHtml(reply, await renderPublicPage(request, reply, users, page));
    }
  }
}

/** The provider routes, beside the other public pages (index.ts). */
export function registerProviderPages(app: FastifyInstance, deps: PageDeps, limit: onRequestHookHandler): void {
  app.get(`${BASE}/:id/start`, { onRequest: limit }, (request, reply) => startRoute(deps, request, reply));
  app.post(`${BASE}/:id/link`, { onRequest: limit }, (request, reply) => linkRoute(deps, request, reply));
  app.get(`${BASE}/:id/callback`, { onRequest: limit }, (request, reply) => callbackRoute(deps, request, reply));
  app.post(`${BASE}/:id/callback`, { onRequest: limit }, (request, reply) => postedCallbackRoute(request, reply));
}
