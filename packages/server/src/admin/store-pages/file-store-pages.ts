import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, formatBytes } from '@roost/forms';
import { fileStoreErrors, pathOf, type FilePath, type FileStore } from '../../filestore/index.js';
import { renderAdminPage, type AdminRequest } from '../page-kit/admin-page.js';
import { link, table, type Column } from '../page-kit/page-parts.js';
import { sendHtml } from '../page-kit/page-reply.js';
import { bulkDeleteView, deleteView, directoryView, fileView, type FilePage } from './file-entry-views.js';
import { fileUrl, unknownStore, type StorePageContext } from './store-page-context.js';

/**
 * `/admin/files/<store>/<path...>` split into the store and the path's decoded segments. The
 * raw url is split first, so an encoded `/` (`%2F`) stays inside its segment and is refused by
 * `pathOf`, like `.`, `..`, empty segments and control characters: no path leaves the store.
 */
function locateFile(request: FastifyRequest): { store: string; path: FilePath } {
  const pathname = (request.raw.url ?? '/').split('?')[0] ?? '/';
  const segments = pathname.slice('/admin/files/'.length).split('/');
  const decoded = segments.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw fileStoreErrors.invalid_path({
        fields: [['path', 'invalid']],
        message: 'The path is not valid percent-encoded UTF-8.',
      });
    }
  });
  const store = decoded.shift() ?? '';
  // One trailing slash is the directory form of a path.
  if (decoded.at(-1) === '') decoded.pop();
  return { store, path: pathOf(decoded) };
}

/** `/admin/files`: the configured file stores with their limits. */
async function storesPage(ctx: StorePageContext, request: FastifyRequest, reply: FastifyReply, admin: AdminRequest) {
  const { fileStores } = ctx.deps.services;
  const rows = await Promise.all(
    fileStores.names.map(async (name) => {
      const store = fileStores.get(name) as FileStore;
      const top = await store.list(admin.principal, pathOf([]), { size: 1 }).catch(() => null);
      return { name, store, entries: top ? String(top.total) : '–' };
    }),
  );
  const columns: Column<(typeof rows)[number]>[] = [
    { label: 'Store', cell: (r) => link(fileUrl(r.name, [], true), r.name) },
    { label: 'Top-level entries', cell: (r) => escapeHtml(r.entries), className: 'num' },
    { label: 'Read by', cell: (r) => escapeHtml(r.store.options.read) },
    // The limit of one file (maxFileBytes), as the data stores page shows its key and value limits.
    { label: 'File size limit', cell: (r) => escapeHtml(formatBytes(r.store.options.maxFileBytes)) },
  ];
  const body = table('File stores', columns, rows, 'No file store is configured.');
  return sendHtml(reply, renderAdminPage(request, reply, admin, { title: 'File stores', body }));
}

/** A directory, a file, or (with `?delete`) the question before deleting either. */
async function entryPage(ctx: StorePageContext, request: FastifyRequest, reply: FastifyReply, admin: AdminRequest) {
  const { store: name, path } = locateFile(request);
  const store = ctx.deps.services.fileStores.get(name);
  if (!store) throw unknownStore('file');
  const entry = await store.get(admin.principal, path);
  const page: FilePage = { request, reply, admin, store, name, path, entry };
  if (path.path !== '' && admin.form.query?.delete !== undefined) return deleteView(page);
  if (entry?.type !== 'f' && admin.form.query?.['delete-selected'] !== undefined) return bulkDeleteView(page);
  return entry?.type === 'f' ? fileView({ ...page, entry }) : directoryView(page);
}

/** Register `/admin/files` and every path below it. */
export function registerFileStorePages(app: FastifyInstance, ctx: StorePageContext): void {
  app.get('/admin/files', async (request, reply) => {
    const admin = await ctx.admin(request, reply);
    return admin ? storesPage(ctx, request, reply, admin) : reply;
  });
  app.route({
    method: ['GET', 'POST'],
    url: '/admin/files/*',
    handler: async (request, reply) => {
      // One file may come with a POST to a directory (the upload form), up to the store's limit;
      // the limit of an unknown store is 0 (the page then answers 404 anyway).
      const store = (request.raw.url ?? '').slice('/admin/files/'.length).split(/[/?]/)[0] ?? '';
      const stores = ctx.deps.config.fileStores;
      const named = decodeURIComponentSafe(store);
      const fileBytes = Object.hasOwn(stores, named) ? (stores[named]?.maxFileBytes ?? 0) : 0;
      const admin = await ctx.admin(request, reply, fileBytes);
      return admin ? entryPage(ctx, request, reply, admin) : reply;
    },
  });
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
