import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { PageDeps } from '../index.js';
import { registerDataItemPages } from './data-item-pages.js';
import { registerDataStoreListPages } from './data-store-pages.js';
import { registerFileStorePages } from './file-store-pages.js';
import { createStorePageContext } from './store-page-context.js';

/**
 * The administrators' pages of the data and file stores, `/admin/data/...` and
 * `/admin/files/...`, in one encapsulated plugin of `registerPages` (admin/index.ts). Every
 * action calls the stores' typed operations as the signed-in administrator, so the stores'
 * permissions apply to the pages as to the API.
 */
export async function registerStorePages(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const ctx = createStorePageContext(deps, join(deps.config.dataDir, 'tmp'));
  registerDataStoreListPages(app, ctx);
  registerDataItemPages(app, ctx);
  registerFileStorePages(app, ctx);
}
