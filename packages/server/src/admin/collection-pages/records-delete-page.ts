import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, listValue } from '@roost/forms';
import { isRoostError } from '../../core/errors.js';
import { renderAdminPage, type AdminRequest } from '../page-kit/admin-page.js';
import { link } from '../page-kit/page-parts.js';
import { flash, sendHtml } from '../page-kit/page-reply.js';
import { collectionUrl, registerPage, type CollectionPageContext } from './collection-page-context.js';

/**
 * `/admin/collections/<name>/delete`: the bulk delete of the records table. The table posts the
 * checked ids here (with the session's CSRF token, checked by the guard before anything is
 * read); this page asks, naming them, and its own button (`confirm$`) deletes them, each through
 * the service's `remove` as the administrator. A GET has nothing to ask about: back to the table.
 */

/** At most this many records at once: the most a page of the table shows. */
const MAX_IDS = 500;

function idsOf(admin: AdminRequest): string[] {
  return [...new Set(listValue(admin.form.body?.id))].slice(0, MAX_IDS);
}

async function deletePage(
  ctx: CollectionPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  name: string,
) {
  const state = ctx.collections.stateOf(name);
  const here = collectionUrl(state.name);
  const ids = idsOf(admin);
  if (request.method !== 'POST' || ids.length === 0) {
    if (request.method === 'POST') flash(request, reply, ['No record was selected.']);
    return reply.header('cache-control', 'no-store').redirect(here, 303);
  }
  if (admin.form.body?.confirm$ !== undefined) {
    let deleted = 0;
    const problems: string[] = [];
    for (const id of ids) {
      try {
        await ctx.collections.remove(admin.principal, state.name, id);
        deleted += 1;
      } catch (err) {
        // A record gone meanwhile, or an id that is none: said, and the others still go.
        if (!isRoostError(err)) throw err;
        problems.push(`${id}: ${err.message}`);
      }
    }
    const message = `${deleted} ${deleted === 1 ? 'record' : 'records'} deleted.`;
    flash(request, reply, [message, ...problems.slice(0, 5)]);
    return reply.header('cache-control', 'no-store').redirect(here, 303);
  }
  const hidden = ids.map((id) => `<input type="hidden" name="id" value="${escapeHtml(id)}">`).join('');
  const listed = ids.map((id) => `<li><code class="key">${escapeHtml(id)}</code></li>`).join('');
  const count = `${ids.length} ${ids.length === 1 ? 'record' : 'records'}`;
  const body =
    `<div class="card confirm"><p>Delete these ${escapeHtml(count)} of ${escapeHtml(state.name)} for good? ` +
    `This cannot be undone.</p><ul>${listed}</ul>` +
    `<form method="post" action="${escapeHtml(`${here}/delete`)}">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(admin.csrf)}">${hidden}` +
    `<button type="submit" name="confirm$" value="1" class="btn danger">Delete ${escapeHtml(count)}</button>` +
    `</form><p>${link(here, 'Cancel')}</p></div>`;
  return sendHtml(reply, renderAdminPage(request, reply, admin, { title: 'Delete records', body }));
}

export function registerRecordsDeletePage(app: FastifyInstance, ctx: CollectionPageContext): void {
  registerPage(app, ctx, '/admin/collections/:name/delete', (request, reply, admin) =>
    deletePage(ctx, request, reply, admin, request.params.name),
  );
}
