import type { FastifyInstance } from 'fastify';
import { frameActor, type AuditLog } from '../core/audit.js';
import { administers } from '../core/grants.js';

/**
 * Every administrator action in the backend is in the audit log (issue 42, item 5): a post of an
 * admin page that answered without an error and whose work recorded no line of its own (a change
 * of settings, permissions, webhooks, keys or accounts records its own, with before and after)
 * gets one line naming the page: running a job now, a test mail, a purge, an item edited on a
 * store page. Registered on the pages' scope (index.ts); the frame is the request's (http/audit-context.ts).
 */
export function recordAdminActions(app: FastifyInstance, audit: AuditLog): void {
  app.addHook('onResponse', async (request, reply) => {
    const frame = request.actorFrame;
    if (request.method !== 'POST' || reply.statusCode >= 400 || !frame || frame.recorded) return;
    if (!frame.principal || !administers(frame.principal)) return;
    const path = request.url.split('?')[0] ?? request.url;
    if (!path.startsWith('/admin/')) return;
    await audit.record({ action: 'admin.action', target: path }, frameActor(frame));
  });
}
