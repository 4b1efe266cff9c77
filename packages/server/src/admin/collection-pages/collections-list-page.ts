import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '@roost/forms';
import type { CollectionInfo } from '../../collections/index.js';
import { renderAdminPage } from '../page-kit/admin-page.js';
import { link, table, type Column } from '../page-kit/page-parts.js';
import { sendHtml } from '../page-kit/page-reply.js';
import {
  collectionUrl,
  NEW_COLLECTION_URL,
  registerPage,
  type CollectionPageContext,
} from './collection-page-context.js';

/** `/admin/collections`: every collection with its records, fields and version, and "New collection". */
export function registerCollectionsListPage(app: FastifyInstance, ctx: CollectionPageContext): void {
  registerPage(
    app,
    ctx,
    '/admin/collections',
    async (request, reply, admin) => {
      const all = (await ctx.collections.collections(admin.principal)).sort((a, b) => a.name.localeCompare(b.name));
      const columns: Column<CollectionInfo>[] = [
        { label: 'Collection', cell: (c) => link(collectionUrl(c.name), c.name) },
        { label: 'Records', cell: (c) => escapeHtml(c.records), className: 'num' },
        { label: 'Fields', cell: (c) => escapeHtml(Object.keys(c.schema.properties).length), className: 'num' },
        { label: 'Version', cell: (c) => escapeHtml(c.version), className: 'num' },
        { label: 'Changed (UTC)', cell: (c) => escapeHtml(c.updated) },
        { label: '', cell: (c) => link(`${collectionUrl(c.name)}/schema`, 'Schema and rules') },
      ];
      const body =
        `<p class="actions">${link(NEW_COLLECTION_URL, 'New collection', ' class="button"')}</p>` +
        '<p class="muted">Records with typed fields, each collection described by one JSON Schema ' +
        '(docs/collections.md). Administrators see and change every record here, whatever the rules say.</p>' +
        table('Collections', columns, all, 'No collection yet.');
      return sendHtml(reply, renderAdminPage(request, reply, admin, { title: 'Collections', body }));
    },
    { methods: ['GET'] },
  );
}
