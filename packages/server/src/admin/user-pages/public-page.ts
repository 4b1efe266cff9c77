import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FieldConf, FormRequest } from '@roost/forms';
import { assertSameOrigin, callerOf } from '../../http/auth.js';
import { ANONYMOUS_CALLER, type UserService } from '../../users/index.js';
import { csrfTokenOf } from '../csrf.js';
import { renderPage, type PageInit } from '../layout.js';
import { readFormRequest } from '../page-kit/page-body.js';
import { takeFlash } from '../page-kit/page-reply.js';

/** The links of the public pages' header. */
const USER_NAV = [
  { href: '/users/signin', label: 'Sign in' },
  { href: '/users/signup', label: 'Sign up' },
] as const;

/**
 * The form request of a public page. Nobody is signed in here, so there is no session to
 * derive a CSRF token from: a POST must come from this site by Fetch Metadata or Origin (what
 * the API's sign-in checks too), checked before the body is read. No file is taken.
 */
export async function publicFormRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { fieldBytes: number; trustedOrigins: readonly string[] },
): Promise<FormRequest> {
  if (request.method === 'POST') assertSameOrigin(request, options.trustedOrigins);
  return readFormRequest(request, reply, { fieldBytes: options.fieldBytes, fileBytes: 0, uploadDir: '' });
}

/**
 * A public page in the shell. Who is signed in (by the cookie: what a browser has) sees the
 * name and a sign-out button in the header instead of the sign-in and sign-up links.
 */
export async function renderPublicPage(
  request: FastifyRequest,
  reply: FastifyReply,
  users: UserService,
  page: Omit<PageInit, 'nav' | 'user'>,
): Promise<string> {
  const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
  const caller = await callerOf(request, users);
  const signedIn =
    caller.user && caller.via === 'cookie'
      ? { name: caller.user.name, signoutAction: '/users/signout', csrfToken: csrfTokenOf(request) }
      : undefined;
  return renderPage({
    ...page,
    messages: [...takeFlash(request, reply), ...(page.messages ?? [])],
    ...(signedIn ? { user: signedIn } : { nav: USER_NAV.map((l) => ({ ...l, current: l.href === path })) }),
    ...(signedIn && caller.impersonator ? { impersonating: impersonationBanner(request, signedIn.name) } : {}),
  });
}

/** The banner of an impersonation (admin/layout.ts), whose End posts to impersonation-pages.ts. */
export const impersonationBanner = (request: FastifyRequest, name: string) => ({
  name,
  endAction: '/users/impersonation/end',
  csrfToken: csrfTokenOf(request),
});

/** The field where a visitor names their account: the user name or email, as the identity policy lets them. */
/** Is `permission` granted to anybody, signed in or not (a sign-in by mail or by SMS an administrator opened)? */
export async function openToAnybody(users: UserService, permission: string): Promise<boolean> {
  return (await users.allowed(ANONYMOUS_CALLER, { permission })).get(permission) === true;
}

export const identityField: FieldConf = {
  id: 'identity',
  name: 'Your user name or email',
  datatype: 'string',
  required: true,
  size: 254,
  settings: { autocomplete: 'username' },
};

/** The success panel of a public form: its message, then what to do next. */
export const successPanel = (messagesHtml: string, next = '') => `<div class="card done">${messagesHtml}${next}</div>`;

export const signInLink = '<p><a class="button" href="/users/signin">Sign in</a></p>';
