import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '@roost/forms';
import { callerOf, endImpersonationCookies, startImpersonationCookies, withClient } from '../../http/auth.js';
import type { UserService } from '../../users/index.js';
import { assertCsrf } from '../csrf.js';
import { link, textParam } from '../page-kit/page-parts.js';
import { flash } from '../page-kit/page-reply.js';
import { publicFormRequest } from '../user-pages/public-page.js';
import type { AdminPages, AdminPageRequest } from './admin-routes.js';
import { accountConfirmForm } from './confirm-form.js';

/**
 * Impersonation (docs/security.md, "Impersonation"; users/impersonation-ops.ts):
 * `/admin/users/<id>/impersonate` asks, then hands the administrator's browser a session of the
 * account (their own kept aside, http/auth.ts `startImpersonationCookies`) and opens the account
 * page; every page shows the banner with End (admin/layout.ts) until `POST
 * /users/impersonation/end` ends that session and gives the administrator's back.
 */

/** The cookie's life: an impersonation's longest (users/impersonation-ops.ts); the session's own end decides. */
const IMPERSONATION_COOKIE_SECONDS = 3600;

const userUrl = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

async function impersonatePage(users: UserService, page: AdminPageRequest) {
  const user = await users.getUser(page.admin, { identity: page.params.id ?? '' });
  const url = `${userUrl(user.id)}/impersonate`;
  let started: { token: string } | undefined;
  const form = accountConfirmForm(page, {
    formid: 'impersonate',
    url,
    accountId: user.id,
    action: { id: 'impersonate', name: `Act as ${user.name}`, cssClass: 'btn btn-primary' },
    async run() {
      started = await users.impersonate(withClient(page.admin, page.request), user.id);
      return undefined;
    },
  });
  const { result, html, response, action } = await form.process({ redirectCancel: userUrl(user.id) });
  if (response) return { response };
  if (action.id === 'impersonate' && result && started) {
    const { token } = started;
    return {
      redirect: '/users/account',
      messages: [`You are acting as ${user.name} until you end it (at most an hour).`],
      beforeRedirect: (request: FastifyRequest, reply: FastifyReply) =>
        startImpersonationCookies(request, reply, token, IMPERSONATION_COOKIE_SECONDS),
    };
  }
  const body =
    `<div class="card narrow"><p>Act as <strong>${escapeHtml(user.name)}</strong>: your browser holds a session ` +
    'of the account for at most an hour, with its permissions and none of yours; the admin backend is closed ' +
    "meanwhile, and what needs the account's own password or code stays out of reach. The start and the end go " +
    `to the audit log.</p>${html}</div><p>${link(userUrl(user.id), `← ${user.name}`)}</p>`;
  return { title: `Impersonate ${user.name}`, body, status: result === false ? 422 : 200 };
}

export function registerImpersonationPage(pages: AdminPages, users: UserService): void {
  pages.page('/admin/users/:id/impersonate', (page) => impersonatePage(users, page));
}

/** `POST /users/impersonation/end`: the banner's End (a form of this site, with the session's CSRF token). */
export function registerImpersonationEnd(app: FastifyInstance, deps: { users: UserService; fieldBytes: number }): void {
  app.post('/users/impersonation/end', async (request, reply) => {
    const form = await publicFormRequest(request, reply, { fieldBytes: deps.fieldBytes, trustedOrigins: [] });
    assertCsrf(request, textParam(form.body?.csrf));
    const caller = await callerOf(request, deps.users);
    await deps.users.endImpersonation(withClient(caller, request));
    endImpersonationCookies(request, reply);
    flash(request, reply, [
      `You are yourself again; ${caller.user?.name ?? 'the account'} was impersonated until now.`,
    ]);
    return reply.header('cache-control', 'no-store').redirect(caller.user ? userUrl(caller.user.id) : '/admin', 303);
  });
}
