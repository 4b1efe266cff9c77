import type { FastifyReply, FastifyRequest } from 'fastify';
import { RoostError } from '../../core/errors.js';
import type { PageDeps } from '../index.js';
import { adminRequest, type AdminRequest } from '../page-kit/admin-page.js';

/** What every store page needs: the services and the guard that also reads the form. */
export interface StorePageContext {
  deps: PageDeps;
  /**
   * The administrator and the form values, or null when the guard has answered; `fileBytes` > 0 lets a file through.
   */
  admin(request: FastifyRequest, reply: FastifyReply, fileBytes?: number): Promise<AdminRequest | null>;
}

export function createStorePageContext(deps: PageDeps, uploadDir: string): StorePageContext {
  return {
    deps,
    admin: (request, reply, fileBytes = 0) =>
      adminRequest(request, reply, {
        users: deps.services.users,
        trustedOrigins: deps.config.corsOrigins,
        fieldBytes: deps.config.bodyLimit,
        fileBytes,
        uploadDir,
      }),
  };
}

export const unknownStore = (kind: 'data' | 'file') =>
  new RoostError('not_found', 'not_found', `There is no ${kind} store of that name.`);

/** `/admin/data/<store>`: store names are [a-z0-9_-], but encoded all the same. */
export const dataStoreUrl = (store: string) => `/admin/data/${encodeURIComponent(store)}`;
export const itemUrl = (store: string, id: number) => `${dataStoreUrl(store)}/items/${id}`;

/** `/admin/files/<store>/<segment>/...`, every segment percent-encoded (a name may hold `?`, `#`, `%`, quotes). */
export function fileUrl(store: string, segments: readonly string[], directory = false): string {
  const path = segments.map(encodeURIComponent).join('/');
  return `/admin/files/${encodeURIComponent(store)}${path ? `/${path}` : ''}${directory && path ? '/' : ''}`;
}

/** The store's own download url of a file (the file store route; the admin's cookie authenticates it). */
export const downloadUrl = (store: string, segments: readonly string[]) =>
  `/${encodeURIComponent(store)}/${segments.map(encodeURIComponent).join('/')}`;
