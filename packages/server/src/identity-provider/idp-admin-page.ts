import { escapeHtml, type ToolConf, type ToolResult } from '@roost/forms';
import { isoTime } from '../core/clock.js';
import { facts, link, table } from '../admin/page-kit/page-parts.js';
import type { AdminPageRequest, AdminPages } from '../admin/pages/admin-routes.js';
import { accountConfirmForm } from '../admin/pages/confirm-form.js';
import { toolPageForm, toolRefusal } from '../admin/pages/tool-form.js';
import type { ClientRegistry, ListedClient } from './idp-clients.js';
import { IDP_PATH } from './idp-provider.js';

/** The admin page's section in the header (admin/admin-nav.ts takes the service kinds' and this). */
export const APPLICATIONS_SECTION = { href: '/admin/applications', label: 'Applications' } as const;

const when = (ms: number | null) => escapeHtml(isoTime(ms) ?? '');
const lines = (value: unknown): string[] =>
  (Array.isArray(value) ? value.map(String) : String(value ?? '').split('\n')).map((l) => l.trim()).filter(Boolean);

async function listPage(clients: ClientRegistry, page: AdminPageRequest, publicUrl: string) {
  let made: { clientId: string; secret: string | null } | undefined;
  const configuration: ToolConf = {
    id: 'add-application',
    name: 'Register an application',
    data: [
      { id: 'name', name: 'Name', datatype: 'string', required: true, size: 100, description: 'On the consent page.' },
      { id: 'clientId', name: 'Client id', datatype: 'string', required: true, size: 100 },
      { id: 'redirectUris', name: 'Redirect URIs', datatype: 'lines', required: true, size: 5000 },
      { id: 'postLogoutRedirectUris', name: 'After sign-out', datatype: 'lines', size: 5000 },
      {
        id: 'confidential',
        name: 'A server-side application (it gets a secret)',
        datatype: 'checkbox',
        description: 'Unticked: a browser or native app, whose only proof is PKCE.',
      },
    ],
    async run(values): Promise<ToolResult> {
      try {
        made = await clients.add(page.admin.user.name, {
          name: String(values.name ?? ''),
          clientId: String(values.clientId ?? ''),
          redirectUris: lines(values.redirectUris),
          postLogoutRedirectUris: lines(values.postLogoutRedirectUris),
          confidential: values.confidential === true,
        });
        return { ok: true, output: 'Registered.' };
      } catch (err) {
        return toolRefusal(err);
      }
    },
  };
  const form = toolPageForm(page, {
    formid: 'add-application',
    url: APPLICATIONS_SECTION.href,
    configuration,
    action: { id: 'add', name: 'Register' },
  });
  const outcome = await form.process();
  const columns = [
    {
      label: 'Name',
      cell: (c: ListedClient) =>
        c.source === 'admin'
          ? link(`${APPLICATIONS_SECTION.href}/${encodeURIComponent(c.clientId)}`, c.name)
          : escapeHtml(c.name),
    },
    { label: 'Client id', cell: (c: ListedClient) => `<code>${escapeHtml(c.clientId)}</code>` },
    { label: 'Kind', cell: (c: ListedClient) => (c.confidential ? 'server (secret)' : 'public (PKCE)') },
    { label: 'Redirect URIs', cell: (c: ListedClient) => c.redirectUris.map((u) => escapeHtml(u)).join('<br>') },
    { label: 'From', cell: (c: ListedClient) => (c.source === 'admin' ? 'this page' : 'the configuration') },
    { label: 'Registered', cell: (c: ListedClient) => when(c.created) },
  ];
  // The secret, on this answer only: it is kept sealed and never shown again.
  const shown =
    made?.secret != null
      ? `<section class="card" role="status"><h2>Application ${escapeHtml(made.clientId)} registered</h2>` +
        '<p>Copy its secret now: it is not shown again.</p>' +
        `<p><code id="new-secret">${escapeHtml(made.secret)}</code></p></section>`
      : '';
  const body =
    shown +
    `<p class="muted">Applications sign people in with their Roost accounts at the issuer ` +
    `<code>${escapeHtml(publicUrl + IDP_PATH)}</code> (docs/users.md, "Roost as an identity provider").</p>` +
    table('Applications', columns, await clients.list(), 'No application yet.') +
    `<section class="card"><h2>Register an application</h2>${outcome.html}</section>`;
  return { title: 'Applications', body, head: await form.htmlHead(), status: outcome.result === false ? 422 : 200 };
}

async function applicationPage(clients: ClientRegistry, page: AdminPageRequest) {
  const id = page.params.id ?? '';
  const client = (await clients.list()).find((c) => c.clientId === id && c.source === 'admin');
  if (!client) return { title: 'No such application', body: '<p>There is no such application.</p>', status: 404 };
  const url = `${APPLICATIONS_SECTION.href}/${encodeURIComponent(id)}`;
  const remove = accountConfirmForm(page, {
    formid: 'remove-application',
    url,
    accountId: id,
    action: { id: 'remove', name: 'Remove application', cssClass: 'btn danger' },
    run: async () => {
      await clients.remove(id);
      return undefined;
    },
  });
  const removed = await remove.process();
  if (removed.action.id === 'remove' && removed.result === true)
    return {
      redirect: APPLICATIONS_SECTION.href,
      messages: [`${client.name} is removed: it signs nobody in any more.`],
    };
  const about = facts([
    ['Name', escapeHtml(client.name)],
    ['Client id', `<code>${escapeHtml(client.clientId)}</code>`],
    ['Kind', client.confidential ? 'server (secret)' : 'public (PKCE)'],
    ['Redirect URIs', client.redirectUris.map((u) => escapeHtml(u)).join('<br>')],
    ['Registered', `${when(client.created)} by ${escapeHtml(client.createdBy ?? '')}`],
  ]);
  const body =
    `<div class="card">${about}</div>` +
    `<section class="card"><h2>Remove</h2><p>The application and what accounts allowed it go; tokens it ` +
    `holds live out their few minutes.</p>${removed.html}</section>` +
    `<p>${link(APPLICATIONS_SECTION.href, '← All applications')}</p>`;
  return { title: `Application ${client.name}`, body, head: await remove.htmlHead() };
}

/**
 * `/admin/applications`: the applications that sign in with Roost accounts, those of the
 * configuration and those registered here (a name, a client id, redirect URIs, a secret shown
 * once or none for a public client); `/admin/applications/<id>`: one, and its removal. Through
 * the admin page kit (admin/pages/admin-routes.ts): administrators only, the session's CSRF token,
 * each post in the audit log (admin/admin-actions.ts).
 */
export function registerApplicationPages(pages: AdminPages, clients: ClientRegistry, publicUrl: string): void {
  pages.page(APPLICATIONS_SECTION.href, (page) => listPage(clients, page, publicUrl));
  pages.page(`${APPLICATIONS_SECTION.href}/:id`, (page) => applicationPage(clients, page));
}
