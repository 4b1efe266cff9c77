import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isXhr, type FormInit, type FormRequest, type FormResponse } from '@roost/forms';
import { RoostError } from '../../core/errors.js';
import type { RequestCaller } from '../../http/auth.js';
import type { User, UserService } from '../../users/index.js';
import { adminRequest, renderAdminPage } from '../page-kit/admin-page.js';
import { positiveInt, textParam } from '../page-kit/page-parts.js';
import { flash, sendFormResponse, sendHtml } from '../page-kit/page-reply.js';

/** Who is behind a management page request, and what it sent. */
export interface AdminPageRequest {
  request: FastifyRequest;
  params: Record<string, string>;
  /** The administrator, as a caller of the user service. */
  admin: RequestCaller & { user: User };
  /** Query and (for POST) body values, for the form library. */
  form: FormRequest;
  /** Hidden values every form of the page carries: the CSRF token. */
  hidden: Record<string, string>;
  /** True for the form script's ajax requests. */
  xhr: boolean;
}

/** What a page adds to its answer before it redirects. */
type Finisher = (request: FastifyRequest, reply: FastifyReply) => void;

/** What a page handler answers. */
type PageOutcome =
  | { title: string; body: string; head?: string; status?: number; messages?: string[] }
  /** `beforeRedirect` adds to the answer first (an impersonation's cookies: impersonation-pages.ts). */
  | { redirect: string; messages?: string[]; beforeRedirect?: Finisher }
  /** A reply of the form library (a redirect, or an ajax answer), sent as it is. */
  | { response: FormResponse }
  /** A file to save: text made for it, or a stream (a backup archive, pages/backups-pages.ts). */
  | { download: { filename: string; contentType: string; body: string | Readable } };

export type PageHandler = (page: AdminPageRequest) => Promise<PageOutcome>;

/** Form options every management form shares: its id, its url, the page's hidden values (the CSRF token). */
export function formBase(formid: string, hidden: Record<string, string>, action?: string): Partial<FormInit> {
  return { formid, hiddenValues: hidden, ...(action ? { action } : {}) };
}

/** `start` of a paged list: absent is 1; anything but a whole number from 1 is refused. */
export function startOf(page: AdminPageRequest): number {
  const text = textParam(page.form.query?.start);
  if (text === '') return 1;
  const start = positiveInt(text, 0, 1e9);
  if (start === 0) throw new RoostError('invalid', 'validation_failure', 'Start must be a whole number, 1 or more.');
  return start;
}

/**
 * The registrar of the management pages on an app: `page(url, handler)` makes GET show the page
 * and POST (unless `post: false`) run its forms. The guard of the page kit comes first: an
 * administrator (else the sign-in page, or 403 for a signed-in user who is not one), and for a
 * POST this site's origin and the session's CSRF token, before the handler sees any value.
 */
export function adminPages(app: FastifyInstance, deps: { users: UserService; bodyLimit: number }) {
  const run = async (request: FastifyRequest, reply: FastifyReply, handler: PageHandler) => {
    // No trusted origins: these forms come from Roost's own pages only. No file either.
    const admin = await adminRequest(request, reply, {
      users: deps.users,
      trustedOrigins: [],
      fieldBytes: deps.bodyLimit,
      fileBytes: 0,
      uploadDir: '',
    });
    if (!admin) return reply;
    const page: AdminPageRequest = {
      request,
      params: (request.params ?? {}) as Record<string, string>,
      admin: admin.caller,
      form: admin.form,
      hidden: { csrf: admin.csrf },
      xhr: isXhr(admin.form),
    };
    const outcome = await handler(page);
    if ('redirect' in outcome) {
      outcome.beforeRedirect?.(request, reply);
      flash(request, reply, outcome.messages ?? []);
      // The form script (@roost/forms assets) goes where X-Relocate says; an XMLHttpRequest
      // would follow a 303 itself and put the whole next page in the form's place.
      if (page.xhr) return reply.header('cache-control', 'no-store').header('x-relocate', outcome.redirect).send('');
      return reply.header('cache-control', 'no-store').redirect(outcome.redirect, 303);
    }
    if ('response' in outcome) return sendFormResponse(request, reply, outcome.response);
    if ('download' in outcome) {
      const { filename, contentType, body } = outcome.download;
      return reply
        .header('cache-control', 'no-store')
        .type(contentType)
        .header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`)
        .send(body);
    }
    const { title, body, head, messages, status } = outcome;
    return sendHtml(
      reply,
      renderAdminPage(request, reply, admin, {
        title,
        body,
        ...(head ? { head } : {}),
        ...(messages ? { messages } : {}),
      }),
      status ?? 200,
    );
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
