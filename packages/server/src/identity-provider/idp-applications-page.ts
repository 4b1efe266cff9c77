import { escapeHtml } from '@roost/forms';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatTime } from '../core/clock.js';
import { assertSameOrigin, callerOf } from '../http/auth.js';
import type { UserService } from '../users/index.js';
import { assertCsrf, csrfTokenOf } from '../admin/csrf.js';
import { flash, sendHtml } from '../admin/page-kit/page-reply.js';
import { renderPublicPage } from '../admin/user-pages/public-page.js';
import type { ClientRegistry } from './idp-clients.js';
import type { IdpRepo } from './idp-repo.js';

/** The page of the applications an account allowed (ASVS 10.7.3: consents reviewed and taken back). */
export const APPLICATIONS_PATH = '/users/applications';

interface ApplicationsDeps {
  users: UserService;
  repo: IdpRepo;
  clients: ClientRegistry;
}

/**
 * `/users/applications`: the applications the signed-in account allowed to sign it in
 * (idp_consents), with what each may see and a button that takes the consent back: the next
 * sign-in there asks again (idp-provider.ts `loadExistingGrant` reads the table). Tokens already
 * issued live out their short lifetime (docs/security.md). A post carries the session's CSRF token.
 */
export async function applicationsPage(deps: ApplicationsDeps, request: FastifyRequest, reply: FastifyReply) {
  const { users, repo } = deps;
  reply.header('cache-control', 'no-store');
  const caller = await callerOf(request, users);
  if (!caller.user || caller.via !== 'cookie')
    return reply.redirect(`/users/signin?next=${encodeURIComponent(APPLICATIONS_PATH)}`, 303);
  if (request.method === 'POST') {
    assertSameOrigin(request, []);
    const body = (request.body ?? {}) as Record<string, unknown>;
    assertCsrf(request, body.csrf);
    const clientId = typeof body.client === 'string' ? body.client : '';
    await repo.removeConsent(caller.user.id, clientId);
    flash(request, reply, ['The application will ask again before it signs you in.']);
    return reply.redirect(APPLICATIONS_PATH, 303);
  }
  const csrf = escapeHtml(csrfTokenOf(request));
  const consents = await repo.consentsOf(caller.user.id);
  const names = await Promise.all(consents.map((c) => deps.clients.nameOf(c.clientId)));
  const rows = consents.map((c, i) => {
    const name = names[i] ?? c.clientId;
    return (
      `<tr><td>${escapeHtml(name)}</td><td>${escapeHtml(c.scope)}</td><td>${escapeHtml(formatTime(c.created))}</td>` +
      `<td><form method="post" action="${APPLICATIONS_PATH}"><input type="hidden" name="csrf" value="${csrf}">` +
      `<input type="hidden" name="client" value="${escapeHtml(c.clientId)}">` +
      `<button type="submit" class="btn secondary">Take back</button></form></td></tr>`
    );
  });
  const table = rows.length
    ? '<table><thead><tr><th>Application</th><th>May see</th><th>Since</th><th></th></tr></thead>' +
      `<tbody>${rows.join('')}</tbody></table>`
    : '<p>No application signs you in with your Roost account.</p>';
  const page = { title: 'Applications you signed in to', body: `<section class="card">${table}</section>` };
  return sendHtml(reply, await renderPublicPage(request, reply, users, page));
}
