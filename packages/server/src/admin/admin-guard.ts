import type { FastifyReply, FastifyRequest } from 'fastify';
import { administers } from '../core/grants.js';
import { callerOf, type RequestCaller } from '../http/auth.js';
import type { UserService } from '../users/index.js';
import { renderPage } from './layout.js';
import { impersonationBanner } from './user-pages/public-page.js';

/**
 * The administrator behind a page request, or null. Pages authenticate with the `auth` cookie
 * that sign-in sets; only a caller that `administers` (core/grants.ts: the `admins` group) gets
 * an admin page or action. Each action then calls a typed operation, which checks its own
 * permission through the same grants.
 */
async function adminCaller(request: FastifyRequest, users: UserService): Promise<RequestCaller | null> {
  const caller = await callerOf(request, users);
  // An impersonation is the account's session, never the backend's, whoever holds it.
  return caller.user && !caller.impersonator && administers(caller.principal) ? caller : null;
}

/**
 * For page routes: the administrator, or null after answering — a redirect to the admin
 * sign-in page for a browser that is not signed in as one (a signed-in non-administrator gets
 * 403 and no page).
 */
export async function requireAdminPage(
  request: FastifyRequest,
  reply: FastifyReply,
  users: UserService,
): Promise<RequestCaller | null> {
  const admin = await adminCaller(request, users);
  if (admin) return admin;
  const caller = await callerOf(request, users);
  if (caller.user && caller.impersonator && caller.via === 'cookie') {
    const page = renderPage({
      title: 'Impersonating',
      body: '<p>The admin backend is closed while you impersonate an account: end it first.</p>',
      impersonating: impersonationBanner(request, caller.user.name),
      home: '/users/account',
    });
    await reply.code(403).type('text/html; charset=utf-8').send(page);
  } else if (caller.user) {
    await reply
      .code(403)
      .type('text/html; charset=utf-8')
      .send('<!doctype html><title>Forbidden</title><p>This page is for administrators.</p>');
  } else {
    await reply.redirect(`/admin/signin?next=${encodeURIComponent(request.url)}`, 303);
  }
  return null;
}
