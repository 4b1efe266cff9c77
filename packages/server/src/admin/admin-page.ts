import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isXhr, type FormRequest, type FormResponse } from '@roost/forms';
import { assertSameOrigin, type RequestCaller } from '../http/auth.js';
import type { User, UserService } from '../users/index.js';
import { requireAdminPage } from './admin-guard.js';
import { adminNav } from './admin-nav.js';
import { assertCsrf, csrfTokenOf } from './csrf.js';
import { flash, takeFlash } from './flash.js';
import { renderPage } from './layout.js';
import { formRequestOf, textOf } from './page-request.js';

/** Who is behind an admin page request, and what it sent. */
export interface AdminRequest {
  request: FastifyRequest;
  params: Record<string, string>;
  /** The administrator (a caller with an account in `admins`). */
  admin: RequestCaller & { user: User };
  /** Query and (for POST) body values, for the form library. */
  form: FormRequest;
  /** Hidden values every form of the page carries: the CSRF token. */
  hidden: Record<string, string>;
  /** True for the form script's ajax requests. */
  xhr: boolean;
}

/** What a page handler answers. */
export type PageOutcome =
  | { title: string; body: string; head?: string; status?: number; messages?: string[] }
  | { redirect: string; messages?: string[] }
  /** A reply of the form library (a redirect, or an ajax answer), sent as it is. */
  | { response: FormResponse }
  | { download: { filename: string; contentType: string; body: string } };

export type PageHandler = (page: AdminRequest) => Promise<PageOutcome>;

/** Form values the pages send with every post besides their fields. */
export const CSRF_FIELD = 'csrf';

/**
 * The registrar of admin pages on an app: `page(url, handler)` makes GET show the page and POST
 * (unless `post: false`) run its forms. Every request needs an administrator (else the sign-in
 * page, or 403 for a signed-in user who is not one); every POST must come from Roost's own page
 * (Fetch Metadata / Origin) and carry the session's CSRF token, both checked before the handler
 * sees the values.
 */
export function adminPages(app: FastifyInstance, deps: { users: UserService; bodyLimit: number }) {
  const run = async (request: FastifyRequest, reply: FastifyReply, handler: PageHandler) => {
    const admin = await requireAdminPage(request, reply, deps.users);
    if (!admin?.user) return reply;
    const form = await formRequestOf(request, deps.bodyLimit);
    if (request.method === 'POST') {
      assertSameOrigin(request, []);
      assertCsrf(request, textOf(form.body, CSRF_FIELD));
    }
    const csrf = csrfTokenOf(request);
    const page: AdminRequest = {
      request,
      params: (request.params ?? {}) as Record<string, string>,
      admin: { ...admin, user: admin.user },
      form,
      hidden: { [CSRF_FIELD]: csrf },
      xhr: isXhr(form),
    };
    return sendOutcome(request, reply, await handler(page), { name: admin.user.name, csrf, path: pathOf(request) });
  };
  return {
    page(url: string, handler: PageHandler, options: { post?: boolean } = {}): void {
      const route = (request: FastifyRequest, reply: FastifyReply) => run(request, reply, handler);
      app.get(url, route);
      if (options.post ?? true) app.post(url, route);
    },
  };
}

export type AdminPages = ReturnType<typeof adminPages>;

function pathOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q === -1 ? request.url : request.url.slice(0, q);
}

export function sendOutcome(request: FastifyRequest, reply: FastifyReply, outcome: PageOutcome, who: { name: string; csrf: string; path: string }) {
  reply.header('cache-control', 'no-store');
  if ('redirect' in outcome) {
    flash(request, reply, outcome.messages ?? []);
    return reply.redirect(outcome.redirect, 303);
  }
  if ('response' in outcome) {
    const { status, headers, body, messages, location } = outcome.response;
    if (location && status >= 300 && status < 400) {
      flash(request, reply, messages ?? []);
      return reply.redirect(location, 303);
    }
    return reply.code(status).headers(headers).send(body);
  }
  if ('download' in outcome) {
    const { filename, contentType, body } = outcome.download;
    return reply.type(contentType).header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`).send(body);
  }
  const messages = [...takeFlash(request, reply), ...(outcome.messages ?? [])];
  return reply
    .code(outcome.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(
      renderPage({
        title: outcome.title,
        body: outcome.body,
        ...(outcome.head ? { head: outcome.head } : {}),
        nav: adminNav(who.path),
        messages,
        user: { name: who.name, signoutAction: '/admin/signout', csrfToken: who.csrf },
      }),
    );
}
