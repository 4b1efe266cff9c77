import { escapeHtml } from '@roost/forms';
import type { HttpServices } from '../../http/http-app.js';
import type { AdminPages } from './admin-routes.js';

/** `/admin`: what there is at a glance (accounts, sign-ups waiting, stores), with the way to each. */
export function registerDashboard(pages: AdminPages, services: HttpServices): void {
  pages.page(
    '/admin',
    async ({ admin }) => {
      const count = async (search: Record<string, unknown>) => Number((await services.users.run('list', admin, { ...search, size: 0 })).total);
      const [users, pending, disabled] = await Promise.all([count({}), count({ pending: true }), count({ active: false })]);
      const tile = (href: string, figure: number, label: string) =>
        `<a class="tile" href="${escapeHtml(href)}"><span class="figure">${figure}</span><span>${escapeHtml(label)}</span></a>`;
      const body =
        `<div class="tiles">` +
        tile('/admin/users', users, users === 1 ? 'account' : 'accounts') +
        tile('/admin/signups', pending, pending === 1 ? 'sign-up waits for review' : 'sign-ups wait for review') +
        tile('/admin/users?state=disabled', disabled, disabled === 1 ? 'disabled account' : 'disabled accounts') +
        tile('/admin/data', services.dataStores.names.length, services.dataStores.names.length === 1 ? 'data store' : 'data stores') +
        tile('/admin/files', services.fileStores.names.length, services.fileStores.names.length === 1 ? 'file store' : 'file stores') +
        `</div>`;
      return { title: 'Overview', body };
    },
    { post: false },
  );
}
