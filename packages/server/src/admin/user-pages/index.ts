import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { liveRateLimit } from '../../core/runtime-settings.js';
import type { PageDeps } from '../index.js';
import { accountPage } from './account-page.js';
import { resetPasswordPage } from './reset-password-page.js';
import { signinMailPage } from './signin-mail-page.js';
import { signinSmsPage } from './signin-sms-page.js';
import { signupPage } from './signup-page.js';
import { registerProviderPages } from './provider-pages.js';
import { registerImpersonationEnd } from '../pages/impersonation-pages.js';
import { ACTIVATE, tokenPage, VERIFY_EMAIL } from './token-pages.js';

type Page = (deps: PageDeps, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The public pages, under the urls the user service's mails link to by default. */
const PAGES: Record<string, Page> = {
  '/users/signup': signupPage,
  '/users/activate': (deps, request, reply) => tokenPage(deps, ACTIVATE, request, reply),
  '/users/verify-email': (deps, request, reply) => tokenPage(deps, VERIFY_EMAIL, request, reply),
  '/users/reset-password': resetPasswordPage,
  '/users/account': accountPage,
  '/users/signin-mail': signinMailPage,
  '/users/signin-sms': signinSmsPage,
};

/**
 * `/users/<page>`: sign-up and the pages the mails link to, for people who are not signed in,
 * the signed-in user's account page (sign-in methods and sessions) and the provider sign-in's
 * start and callback (provider-pages.ts),
 * in one encapsulated plugin of `registerPages` (admin/index.ts).
 * Every action is one call of the user service; a POST is rate limited like the API operation
 * it runs, and must come from this site.
 */
export async function registerPublicUserPages(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const limit = app.rateLimit(liveRateLimit(deps.settings));
  for (const [url, page] of Object.entries(PAGES)) {
    const handler = (request: FastifyRequest, reply: FastifyReply) => page(deps, request, reply);
    app.get(url, handler);
    app.post(url, { onRequest: limit }, handler);
  }
  registerProviderPages(app, deps, limit);
  registerImpersonationEnd(app, { users: deps.services.users, fieldBytes: deps.config.bodyLimit });
}
