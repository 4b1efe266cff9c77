import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { PageDeps } from '../index.js';
import { createCollectionPageContext } from './collection-page-context.js';
import { registerCollectionsListPage } from './collections-list-page.js';
import { registerImportPage } from './import-page.js';
import { registerRecordExport } from './record-export.js';
import { registerRecordPages } from './record-pages.js';
import { registerRecordsDeletePage } from './records-delete-page.js';
import { registerRecordsTablePage } from './records-table-page.js';
import { registerSchemaPages } from './schema-editor-page.js';

/**
 * The administrators' pages of the collections (issue 39, item 7), `/admin/collections/...`, in
 * one encapsulated plugin of `registerPages` (admin/index.ts), as the store pages are: the list,
 * the schema editor, the records table with its bulk delete, the record form, and the import and
 * export of records. Every action calls the collections service as the signed-in administrator.
 */
export async function registerCollectionPages(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const ctx = createCollectionPageContext(deps, join(deps.config.dataDir, 'tmp'));
  registerCollectionsListPage(app, ctx);
  registerSchemaPages(app, ctx);
  registerRecordsTablePage(app, ctx);
  registerRecordsDeletePage(app, ctx);
  registerRecordPages(app, ctx);
  registerRecordExport(app, ctx);
  registerImportPage(app, ctx);
}
