import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, listValue, type FormRequest } from '@roost/forms';
import { isRoostError } from '../../core/errors.js';
import { renderAdminPage, type AdminRequest } from './admin-page.js';
import { link } from './page-parts.js';
import { flash, sendHtml } from './page-reply.js';

/**
 * The bulk delete of the admin lists (issue 42, item 6). A list's checked rows are posted (with
 * the session's CSRF token, checked by the guard before any value is read) to the list's
 * `…/delete` url; that page asks, counting and naming them ("Delete 12 items?"), and its own
 * button (`confirm$`) deletes them one by one through the typed service as the administrator,
 * so each delete has the permission checks, events, webhooks and hooks of any other. It reports
 * per row: a row that fails (gone meanwhile, refused) is named and the others still go. A GET,
 * or a post with nothing checked, goes back to the list.
 */

/** At most this many rows at once: the most a page of a list shows. */
const MAX_BULK_IDS = 500;

export interface BulkDelete {
  /** What one row is, and more than one: `['item', 'items']`. */
  noun: readonly [one: string, many: string];
  /** The list (back to it afterwards, and Cancel). */
  listUrl: string;
  /** Where the question posts (the page itself). */
  actionUrl: string;
  csrf: string;
  /** Said in the question before the list (what else goes with a row). */
  note?: string;
  /** How a row is named in the question (its key, its name); the id itself when not given. */
  describe?: (ids: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** Deletes one row; false when it was gone already. A RoostError is reported for its row. */
  remove: (id: string) => Promise<boolean>;
}

/** What the page does next: back to the list with messages, or show the question. */
export type BulkOutcome = { redirect: string; messages: string[] } | { title: string; body: string };

const counted = (n: number, noun: BulkDelete['noun']) => `${n} ${n === 1 ? noun[0] : noun[1]}`;

/** The posted, distinct ids, at most `MAX_BULK_IDS`. */
function bulkIds(form: FormRequest): string[] {
  return [...new Set(listValue(form.body?.id))].slice(0, MAX_BULK_IDS);
}

async function deleteAll(spec: BulkDelete, ids: readonly string[]): Promise<string[]> {
  let deleted = 0;
  const problems: string[] = [];
  for (const id of ids) {
    try {
      if (await spec.remove(id)) deleted += 1;
      else problems.push(`${id}: already gone.`);
    } catch (err) {
      if (!isRoostError(err)) throw err;
      problems.push(`${id}: ${err.message}`);
    }
  }
  return [`${counted(deleted, spec.noun)} deleted.`, ...problems.slice(0, 5)];
}

/** The bulk delete's step for this request (see above). */
export async function bulkDelete(method: string, form: FormRequest, spec: BulkDelete): Promise<BulkOutcome> {
  const ids = bulkIds(form);
  if (method !== 'POST') return { redirect: spec.listUrl, messages: [] };
  if (ids.length === 0) return { redirect: spec.listUrl, messages: [`No ${spec.noun[0]} was selected.`] };
  if (form.body?.confirm$ !== undefined) return { redirect: spec.listUrl, messages: await deleteAll(spec, ids) };
  const names = spec.describe ? await spec.describe(ids) : new Map<string, string>();
  const hidden = ids.map((id) => `<input type="hidden" name="id" value="${escapeHtml(id)}">`).join('');
  const listed = ids.map((id) => `<li><code class="key">${escapeHtml(names.get(id) ?? id)}</code></li>`).join('');
  const count = counted(ids.length, spec.noun);
  const body =
    `<div class="card confirm"><p>Deleted for good, this cannot be undone: ${escapeHtml(count)}.` +
    `${spec.note ? ` ${escapeHtml(spec.note)}` : ''}</p>` +
    `<ul>${listed}</ul>` +
    `<form method="post" action="${escapeHtml(spec.actionUrl)}">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(spec.csrf)}">${hidden}` +
    `<button type="submit" name="confirm$" value="1" class="btn danger">Delete ${escapeHtml(count)}</button>` +
    `</form><p>${link(spec.listUrl, 'Cancel')}</p></div>`;
  return { title: `Delete ${count}?`, body };
}

/** Sends a step of the bulk delete for the pages that answer themselves (store and collection pages). */
export function sendBulkOutcome(
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  outcome: BulkOutcome,
): FastifyReply {
  if ('redirect' in outcome) {
    flash(request, reply, outcome.messages);
    return reply.header('cache-control', 'no-store').redirect(outcome.redirect, 303);
  }
  return sendHtml(reply, renderAdminPage(request, reply, admin, outcome));
}
