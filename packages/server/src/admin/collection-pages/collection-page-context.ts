import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Collections } from '../../collections/index.js';
import { isRoostError, RoostError } from '../../core/errors.js';
import type { PageDeps } from '../index.js';
import type { AdminRequest } from '../page-kit/admin-page.js';
import { createStorePageContext } from '../store-pages/store-page-context.js';

/**
 * What every collection page needs (issue 39, item 7): the collections, the other services
 * their records point at (accounts, file stores), and the guard that also reads the form. The
 * pages call the collections service as the signed-in administrator, as the API's routes do
 * (http/routes/collection-routes.ts), so the service's checks and answers are the API's.
 */
export interface CollectionPageContext {
  collections: Collections;
  deps: PageDeps;
  /**
   * The administrator and the form values, or null when the guard has answered; `fileBytes` > 0
   * lets one file through (a record's file, a schema or an import).
   */
  admin(request: FastifyRequest, reply: FastifyReply, fileBytes?: number): Promise<AdminRequest | null>;
}

/** The store pages' guard (store-pages/store-page-context.ts), the same for these pages. */
export function createCollectionPageContext(deps: PageDeps, uploadDir: string): CollectionPageContext {
  return { collections: deps.collections, deps, admin: createStorePageContext(deps, uploadDir).admin };
}

/** `/admin/collections/<name>`: names are [a-z0-9_], encoded all the same. */
export const collectionUrl = (name: string) => `/admin/collections/${encodeURIComponent(name)}`;
export const recordUrl = (name: string, id: string) => `${collectionUrl(name)}/records/${encodeURIComponent(id)}`;
/** The new collection's page: a hyphen is in no collection's name, so no collection hides it. */
export const NEW_COLLECTION_URL = '/admin/collections/new-collection';

type Params = { name: string; id: string };
export type CollectionPage = (
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  admin: AdminRequest,
) => Promise<unknown>;

/**
 * Registers a page for GET and POST behind the guard; `fileBytes` is the one file its forms
 * take (0: none). A file over it is refused with `tooLarge`'s words when given.
 */
export function registerPage(
  app: FastifyInstance,
  ctx: CollectionPageContext,
  url: string,
  page: CollectionPage,
  options: {
    /** The largest file, or how to find it for the request (by the collection its url names). */
    fileBytes?: number | ((params: Params) => number);
    tooLarge?: string;
    methods?: Array<'GET' | 'POST'>;
  } = {},
): void {
  app.route<{ Params: Params }>({
    method: options.methods ?? ['GET', 'POST'],
    url,
    handler: async (request, reply) => {
      let admin: AdminRequest | null;
      try {
        const { fileBytes = 0 } = options;
        admin = await ctx.admin(request, reply, typeof fileBytes === 'number' ? fileBytes : fileBytes(request.params));
      } catch (err) {
        // The page body's words speak of a store's limit (page-kit/page-body.ts); an import has its own.
        if (
          options.tooLarge &&
          isRoostError(err) &&
          err.code === 'body_too_large' &&
          err.message.startsWith('The file')
        )
          throw new RoostError('too_large', 'body_too_large', options.tooLarge);
        throw err;
      }
      return admin ? page(request, reply, admin) : reply;
    },
  });
}
