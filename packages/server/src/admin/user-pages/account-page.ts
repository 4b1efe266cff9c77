import { escapeHtml, type FormResponse } from '@roost/forms';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, type RequestCaller } from '../../http/auth.js';
import type { ListedSession, UserService } from '../../users/index.js';
import { assertCsrf, csrfTokenOf } from '../csrf.js';
import type { PageDeps } from '../index.js';
import { textParam } from '../page-kit/page-parts.js';
import { sessionsButton, sessionsTable } from '../page-kit/sessions-table.js';
import { flash, sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { publicFormRequest, renderPublicPage } from './public-page.js';
import { METHOD_PAGES } from '../signin-methods/index.js';
import type { AccountPagePart } from '../signin-methods/method-page.js';

/**
 * `/users/account`: the signed-in user's sign-in methods and sessions (docs/users.md). Each
 * sign-in method's section, with the forms it answers, comes from its page part
 * (admin/signin-methods/index.ts, in the order of the list); this page adds the sign-in
 * providers, linked and unlinked here (provider-pages.ts starts a link), and the sessions with a
 * button to end each, or all the others. Changes of how the account signs in ask for the password
 * again, as the API does (`reauthenticate`, users/user-context.ts). Every change is one call of
 * the user service, as the API makes it; forms carry the session's CSRF token.
 */
const PATH = '/users/account';

/** The password again, in the plain forms that change how the account signs in. */
const PROOF_INPUT =
  '<input type="password" name="password" aria-label="Your password" placeholder="Your password" ' +
  'maxlength="256" required autocomplete="current-password">';

function sessionsSection(sessions: readonly ListedSession[], csrf: string): string {
  const others = sessions.some((s) => !s.current)
    ? sessionsButton(PATH, csrf, 'endOthers', 'Sign out everywhere else')
    : '';
  return `<section class="card"><h2>Sessions</h2>${sessionsTable(sessions, PATH, csrf)}${others}</section>`;
}

/** The providers: each linked one with its Unlink button, each other one with a button that links it. */
async function providersSection(users: UserService, caller: RequestCaller, csrf: string): Promise<string> {
  const configured = await users.providers(caller);
  if (configured.length === 0) return '';
  const linked = await users.providerLinks(caller);
  const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
  // An anonymous account has no password to give: linking a provider is how it becomes a full one.
  const linkProof = caller.user?.anonymous ? '' : PROOF_INPUT;
  const rows = configured.map((p) => {
    const link = linked.find((l) => l.provider === p.id);
    const id = encodeURIComponent(p.id);
    const button = link
      ? `<form method="post" action="${PATH}">${hidden}<input type="hidden" name="provider" value="${id}">` +
        `${PROOF_INPUT}<button type="submit" name="unlink$" value="1" class="btn secondary">Unlink</button></form>`
      : `<form method="post" action="/users/providers/${id}/link">${hidden}${linkProof}` +
        `<button type="submit" class="btn secondary">Link ${escapeHtml(p.label)}</button></form>`;
    const what = link ? `linked${link.email ? ` as ${escapeHtml(link.email)}` : ''}` : 'not linked';
    return `<li><strong>${escapeHtml(p.label)}</strong>: ${what} ${button}</li>`;
  });
  return `<section class="card"><h2>Sign-in providers</h2><ul class="providers">${rows.join('')}</ul></section>`;
}

/**
 * The sign-in methods' sections (admin/signin-methods/index.ts), in the order of the list, each
 * processing its own forms; the first that answers the post itself ends the page.
 */
async function methodSections(
  users: UserService,
  caller: RequestCaller,
  part: AccountPagePart,
): Promise<{ html: string; failed: boolean } | { response: FormResponse }> {
  let html = '';
  let failed = false;
  for (const method of METHOD_PAGES) {
    const section = await method.accountSection?.(users, caller, part);
    if (section?.response) return { response: section.response };
    html += section?.html ?? '';
    failed ||= section?.failed === true;
  }
  return { html, failed };
}

/** The session buttons, which are plain forms: end one session, or all the others; then back here. */
async function endSessions(users: UserService, caller: RequestCaller, body: Record<string, unknown>): Promise<string> {
  if (body.endOthers$ !== undefined) {
    await users.revokeOtherSessions(caller);
    return 'Every other session has ended.';
  }
  await users.revokeSession(caller, { session: textParam(body.session) });
  return 'The session has ended.';
}

export async function accountPage(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const caller = await callerOf(request, users);
  reply.header('cache-control', 'no-store');
  if (!caller.user || caller.via !== 'cookie') return reply.redirect(`/users/signin?next=${PATH}`, 303);
  const form = await publicFormRequest(request, reply, {
    fieldBytes: deps.config.bodyLimit,
    trustedOrigins: deps.config.corsOrigins,
  });
  if (request.method === 'POST') assertCsrf(request, form.body?.csrf);
  const body = form.body ?? {};
  // The sign-in methods' own plain forms (admin/signin-methods/index.ts).
  for (const method of request.method === 'POST' ? METHOD_PAGES : []) {
    const done = (await method.accountAction?.(users, caller, body)) ?? null;
    if (done === null) continue;
    flash(request, reply, [done]);
    return reply.redirect(PATH, 303);
  }
  if (request.method === 'POST' && body.unlink$ !== undefined) {
    await users.unlinkProvider(caller, { provider: textParam(body.provider), password: textParam(body.password) });
    flash(request, reply, ['The provider is unlinked.']);
    return reply.redirect(PATH, 303);
  }
  if (request.method === 'POST' && (body.endSession$ !== undefined || body.endOthers$ !== undefined)) {
    flash(request, reply, [await endSessions(users, caller, body)]);
    return reply.redirect(PATH, 303);
  }

  const csrf = csrfTokenOf(request);
  const sections = await methodSections(users, caller, { path: PATH, csrf, proofInput: PROOF_INPUT, form });
  if ('response' in sections) return sendFormResponse(request, reply, sections.response);
  const sessions = await users.sessions(caller);
  const page = {
    title: 'Your account',
    body: sections.html + (await providersSection(users, caller, csrf)) + sessionsSection(sessions, csrf),
  };
  return sendHtml(reply, await renderPublicPage(request, reply, users, page), sections.failed ? 422 : 200);
}
