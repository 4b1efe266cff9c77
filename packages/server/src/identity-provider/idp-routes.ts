import type { IncomingMessage } from 'node:http';
import { escapeHtml } from '@roost/forms';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import { assertSameOrigin, callerOf, type RequestCaller } from '../http/auth.js';
import type { UserService } from '../users/index.js';
import { assertCsrf, csrfTokenOf } from '../admin/csrf.js';
import { renderPage } from '../admin/layout.js';
import { installPageErrorHandler } from '../admin/page-kit/page-errors.js';
import { sendHtml } from '../admin/page-kit/page-reply.js';
import { renderPublicPage } from '../admin/user-pages/public-page.js';
import { signinState } from './idp-accounts.js';
import { APPLICATIONS_PATH, applicationsPage } from './idp-applications-page.js';
import { consentPage, type ConsentRequest } from './idp-consent-page.js';
import type { ClientRegistry } from './idp-clients.js';
import { IDP_PATH } from './idp-provider.js';
import type { IdpRepo } from './idp-repo.js';
import type { Clock } from '../core/clock.js';

export interface IdpRouteDeps {
  provider: Provider;
  users: UserService;
  repo: IdpRepo;
  clients: ClientRegistry;
  clock: Clock;
  /** Where the provider's checks find the Roost caller of a request (idp-provider.ts `callerOf`). */
  callers: WeakMap<IncomingMessage, () => Promise<RequestCaller>>;
}

/** The page of an error the provider shows itself (its own answers bypass the pages' error handler). */
export function idpErrorPage(title: string, message: string): string {
  return renderPage({
    title,
    body:
      `<div class="card narrow"><p>${escapeHtml(message)}</p>` +
      '<p>Go back to the application and try again.</p></div>',
    home: '/users/signin',
  });
}

/** The page of an application's end of the session (the library's form, submitted by the buttons). */
export function idpLogoutPage(form: string, clientName: string | undefined): string {
  const from = clientName ? `You are signing out of <strong>${escapeHtml(clientName)}</strong>. ` : '';
  return renderPage({
    title: 'Sign out',
    body:
      `<div class="card narrow">${form}<p>${from}Sign out of Roost too?</p><div class="form-actions">` +
      '<button type="submit" form="op.logoutForm" name="logout" value="yes" class="btn btn-primary">' +
      'Sign out of Roost too</button> ' +
      '<button type="submit" form="op.logoutForm" class="btn secondary">Only of the application</button></div></div>',
    home: '/users/signin',
  });
}

/**
 * The provider under `/oidc` (docs/users.md, "Roost as an identity provider"): the library's own
 * Koa app handed the raw request (its `callback()`), with the path below the mount and the body
 * unread (it reads its own: this context takes no body), and Roost's caller of the request for
 * its login check. Its answers are its own (the reply is hijacked: Roost's headers are not
 * added; idp-provider.ts forbids framing its few HTML pages).
 */
async function mountProvider(app: FastifyInstance, deps: IdpRouteDeps): Promise<void> {
  const callback = deps.provider.callback();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw: IncomingMessage & { originalUrl?: string } = request.raw;
    deps.callers.set(raw, () => callerOf(request, deps.users));
    reply.hijack();
    raw.originalUrl = raw.url;
    raw.url = (raw.url ?? '').slice(IDP_PATH.length) || '/';
    await callback(raw, reply.raw);
  };
  app.route({ method: ['GET', 'POST', 'OPTIONS'], url: `${IDP_PATH}/*`, handler });
}

/** What the library's interaction says was asked, for the consent page. */
function consentRequest(details: Awaited<ReturnType<Provider['interactionDetails']>>): ConsentRequest {
  const asked = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  return {
    clientId: String(details.params.client_id),
    scopes: asked.missingOIDCScope ?? [],
    claims: asked.missingOIDCClaims ?? [],
    resources: asked.missingResourceScopes ?? {},
  };
}

const STALE_SIGNIN = 'Your Roost sign-in is older than the application asks for: sign out, then sign in again.';

/**
 * Since when (seconds) the Roost sign-in must be, when the application asks for a fresh one:
 * `prompt=login` (a sign-in after this interaction began: the sign-in page it led to) or
 * `max_age`. Roost's sign-in is its session, so its time is the session's start (also the
 * `auth_time` the library puts in the ID token); an older one gets `login_required`.
 */
function freshSince(details: Awaited<ReturnType<Provider['interactionDetails']>>): number {
  const maxAge = Number(details.params.max_age);
  const since = [0];
  if (details.prompt.reasons.includes('login_prompt')) since.push(details.iat);
  if (Number.isFinite(maxAge) && details.params.max_age !== undefined) since.push(Date.now() / 1000 - maxAge);
  return Math.max(...since);
}

/**
 * The interaction of an authorization request, `/oidc/interaction/<uid>`: the library sends the
 * browser here when Roost's sign-in or the account's consent is missing. Not signed in: to
 * Roost's sign-in page, which comes back here (its `next`). Signed in under the rules
 * (idp-accounts.ts `signinState`): the login is the Roost account; then the consent page, whose
 * answer is remembered per account and client (idp_consents).
 */
async function interaction(deps: IdpRouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { provider, users } = deps;
  reply.header('cache-control', 'no-store');
  let details: Awaited<ReturnType<Provider['interactionDetails']>>;
  try {
    details = await provider.interactionDetails(request.raw, reply.raw);
  } catch (err) {
    if (!(err instanceof errors.SessionNotFound)) throw err;
    const page = {
      title: 'This sign-in has expired',
      body:
        '<div class="card narrow"><p>This sign-in took too long or was finished already. ' +
        'Go back to the application and start again.</p></div>',
    };
    return sendHtml(reply, await renderPublicPage(request, reply, users, page), 400);
  }
  const caller = await callerOf(request, users);
  const state = await signinState(users, caller);
  const here = `${IDP_PATH}/interaction/${encodeURIComponent(details.uid)}`;
  if (state.kind === 'absent') return reply.redirect(`/users/signin?next=${encodeURIComponent(here)}`, 303);
  if (state.kind === 'refused') {
    const page = { title: 'Sign in again', body: `<div class="card narrow"><p>${escapeHtml(state.reason)}</p></div>` };
    return sendHtml(reply, await renderPublicPage(request, reply, users, page), 403);
  }
  const user = state.user;
  const finish = async (result: Parameters<Provider['interactionResult']>[2], merge: boolean) => {
    const to = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: merge });
    return continuePage(reply, to);
  };
  if (details.prompt.name === 'login' || details.session?.accountId !== user.id) {
    const signedInAt = Math.floor(((await users.sessions(caller)).find((x) => x.current)?.created ?? 0) / 1000);
    if (signedInAt < freshSince(details))
      return finish({ error: 'login_required', error_description: STALE_SIGNIN }, false);
    return finish({ login: { accountId: user.id, ts: signedInAt } }, false);
  }
  if (details.prompt.name !== 'consent') throw new errors.InvalidRequest(`unknown prompt ${details.prompt.name}`);

  const asked = consentRequest(details);
  if (request.method === 'POST') {
    assertSameOrigin(request, []);
    const body = (request.body ?? {}) as Record<string, unknown>;
    assertCsrf(request, body.csrf);
    if (body.deny$ !== undefined)
      return finish({ error: 'access_denied', error_description: 'The user did not allow the application.' }, true);
    const grant = details.grantId
      ? ((await provider.Grant.find(details.grantId)) ??
        new provider.Grant({ accountId: user.id, clientId: asked.clientId }))
      : new provider.Grant({ accountId: user.id, clientId: asked.clientId });
    if (asked.scopes.length > 0) grant.addOIDCScope(asked.scopes.join(' '));
    if (asked.claims.length > 0) grant.addOIDCClaims(asked.claims);
    for (const [resource, scopes] of Object.entries(asked.resources))
      grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    const resources = Object.fromEntries(Object.keys(grant.resources ?? {}).map((r) => [r, grant.getResourceScope(r)]));
    await deps.repo.saveConsent(user.id, asked.clientId, { scope: grant.getOIDCScope(), resources }, deps.clock.now());
    return finish({ consent: { grantId } }, true);
  }
  const page = consentPage({
    asked,
    clientName: await deps.clients.nameOf(asked.clientId),
    user,
    action: here,
    csrf: csrfTokenOf(request),
  });
  return sendHtml(reply, await renderPublicPage(request, reply, users, page));
}

/**
 * On to the provider's next step (`/oidc/auth/<uid>`, then the application) by a page rather
 * than a redirect: the sign-in page's form led here by redirects, and Chrome holds a form's
 * `form-action` ('self' on Roost's pages) to every redirect after its post, the last of which
 * reaches the application.
 */
function continuePage(reply: FastifyReply, to: string): FastifyReply {
  const local = new URL(to).pathname + new URL(to).search;
  const html = renderPage({
    title: 'Signing you in',
    head: `<meta http-equiv="refresh" content="0;url=${escapeHtml(local)}">`,
    body: `<div class="card narrow"><p><a class="btn btn-primary" href="${escapeHtml(local)}">Continue</a></p></div>`,
    home: '/users/signin',
  });
  return sendHtml(reply, html);
}

export async function registerIdpRoutes(app: FastifyInstance, deps: IdpRouteDeps): Promise<void> {
  await app.register(mountProvider, deps);
  await app.register(async (pages: FastifyInstance) => {
    installPageErrorHandler(pages);
    const handler = (request: FastifyRequest, reply: FastifyReply) => interaction(deps, request, reply);
    pages.get(`${IDP_PATH}/interaction/:uid`, handler);
    pages.post(`${IDP_PATH}/interaction/:uid`, handler);
    const applications = (request: FastifyRequest, reply: FastifyReply) => applicationsPage(deps, request, reply);
    pages.get(APPLICATIONS_PATH, applications);
    pages.post(APPLICATIONS_PATH, applications);
  });
}
