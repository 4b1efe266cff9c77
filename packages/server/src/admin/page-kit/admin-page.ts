import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FormRequest, HTMLForm } from '@roost/forms';
import type { Principal } from '../../core/permissions.js';
import { assertSameOrigin, type RequestCaller } from '../../http/auth.js';
import type { User, UserService } from '../../users/index.js';
import { requireAdminPage } from '../admin-guard.js';
import { adminNav } from '../admin-nav.js';
import { assertCsrf, csrfTokenOf } from '../csrf.js';
import { renderPage, type PageInit } from '../layout.js';
import { readFormRequest, type PageBodyLimits } from './page-body.js';
import { sendFormResponse, sendHtml, takeFlash } from './page-reply.js';

/** Where the page header's sign-out button posts (the sign-in pages own the route). */
const ADMIN_SIGNOUT = '/admin/signout';

/** An administrator's page request: who, the form values, the CSRF token for the forms. */
export interface AdminRequest {
  /** The administrator as a caller of the user service (`users.run`). */
  caller: RequestCaller & { user: User };
  principal: Principal;
  name: string;
  form: FormRequest;
  csrf: string;
}

export interface AdminGuardOptions extends PageBodyLimits {
  users: UserService;
  trustedOrigins: readonly string[];
}

/**
 * The guard of every admin store page, before anything is read or done: an administrator
 * signed in by the cookie, or the guard's answer (sign-in redirect, 403) and null. A POST must
 * also come from this site (Fetch Metadata / Origin, checked before the body is read) and carry
 * the session's CSRF token (checked after, before any form runs).
 */
export async function adminRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  options: AdminGuardOptions,
): Promise<AdminRequest | null> {
  const admin = await requireAdminPage(request, reply, options.users);
  if (!admin?.user) return null;
  if (request.method === 'POST') assertSameOrigin(request, options.trustedOrigins);
  const form = await readFormRequest(request, reply, options);
  if (request.method === 'POST') assertCsrf(request, form.body?.csrf);
  return {
    caller: { ...admin, user: admin.user },
    principal: admin.principal,
    name: admin.user.name,
    form,
    csrf: csrfTokenOf(request),
  };
}

/** An admin page: the shell with the sections, the signed-in administrator and flashed messages. */
export function renderAdminPage(
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  page: Omit<PageInit, 'nav' | 'user'>,
): string {
  const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
  return renderPage({
    ...page,
    messages: [...takeFlash(request, reply), ...(page.messages ?? [])],
    nav: adminNav(path, request.server.adminSections ?? []),
    user: { name: admin.name, signoutAction: ADMIN_SIGNOUT, csrfToken: admin.csrf },
  });
}

/**
 * Run a page's forms and send the page: the first form with a response of its own (a redirect,
 * an ajax answer) sends that instead; a refused submission answers 422 with the page.
 */
export async function sendAdminForms(
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  title: string,
  forms: readonly HTMLForm[],
  body: (html: string[]) => string,
) {
  const htmls: string[] = [];
  let refused = false;
  for (const form of forms) {
    const { result, html, response } = await form.process();
    if (response) return sendFormResponse(request, reply, response);
    refused ||= result === false;
    htmls.push(html);
  }
  const head = forms[0] ? await forms[0].htmlHead() : '';
  return sendHtml(
    reply,
    renderAdminPage(request, reply, admin, { title, body: body(htmls), head }),
    refused ? 422 : 200,
  );
}
