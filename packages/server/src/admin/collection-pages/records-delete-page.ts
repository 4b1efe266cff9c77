import type { FastifyInstance } from 'fastify';
import { bulkDelete, sendBulkOutcome } from '../page-kit/bulk-delete.js';
import { collectionUrl, registerPage, type CollectionPageContext } from './collection-page-context.js';

/**
 * `/admin/collections/<name>/delete`: the bulk delete of the records table, the page kit's
 * (page-kit/bulk-delete.ts): the question names the checked ids, its button deletes each
 * through the service's `remove` as the administrator, reporting per record.
 */
export function registerRecordsDeletePage(app: FastifyInstance, ctx: CollectionPageContext): void {
  registerPage(app, ctx, '/admin/collections/:name/delete', async (request, reply, admin) => {
    const state = ctx.collections.stateOf(request.params.name);
    const here = collectionUrl(state.name);
    const outcome = await bulkDelete(request.method, admin.form, {
      noun: ['record', 'records'],
      listUrl: here,
      actionUrl: `${here}/delete`,
      csrf: admin.csrf,
      remove: async (id) => {
        await ctx.collections.remove(admin.principal, state.name, id);
        return true;
      },
    });
    return sendBulkOutcome(request, reply, admin, outcome);
  });
}
