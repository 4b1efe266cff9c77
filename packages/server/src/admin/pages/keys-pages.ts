import { escapeHtml, type ToolConf, type ToolResult } from '@roost/forms';
import { parseScopeText, scopeText } from '../../core/api-keys.js';
import type { KeyService, KeyView } from '../../keys/index.js';
import { facts, link, table } from '../page-kit/page-parts.js';
import type { AdminPages, AdminPageRequest } from './admin-routes.js';
import { toolPageForm, toolRefusal } from './tool-form.js';
import { accountConfirmForm } from './confirm-form.js';
import { isoTime } from '../../core/clock.js';

/**
 * `/admin/keys`: the API keys (docs/operations.md, "API keys") and a form to make one, whose
 * text is shown on the answer to that form only; `/admin/keys/<id>`: one key and its revocation.
 */

interface KeyPagesDeps {
  keys: KeyService;
}

/** ISO 8601 with offset, as everything new shows times (issue 42, item 8). */
const when = (ms: number | null) => escapeHtml(isoTime(ms) ?? '');
const scopesOf = (key: KeyView) => key.scopes.map((s) => `<code>${escapeHtml(scopeText(s))}</code>`).join(' ');

async function listPage(deps: KeyPagesDeps, page: AdminPageRequest) {
  let made: { key: KeyView; token: string } | undefined;
  const configuration: ToolConf = {
    id: 'add-key',
    name: 'Make an API key',
    data: [
      { id: 'name', name: 'Name', datatype: 'string', required: true, size: 200 },
      {
        id: 'scopes',
        name: 'Scopes',
        datatype: 'lines',
        required: true,
        size: 5000,
        settings: { rows: 3 },
        description:
          'One per line, kind:name:access — e.g. store:notes:read,write or collection:posts:read; * for every ' +
          'store or collection; access is read, write or manage. scim:*:read,write is an identity ' +
          "provider's SCIM connection (docs/users.md, SCIM provisioning).",
        validator: (value) => parseScopeText(linesOf(value)).problem ?? undefined,
      },
      {
        id: 'days',
        name: 'Expires after (days)',
        datatype: 'number',
        description: 'Empty: the key never expires.',
      },
    ],
    async run(values): Promise<ToolResult> {
      const days = Number(values.days ?? 0);
      try {
        made = await deps.keys.create(page.admin.principal, {
          name: String(values.name ?? ''),
          scopes: parseScopeText(linesOf(values.scopes)).scopes,
          ...(days > 0 ? { expiresInDays: days } : {}),
        });
        return { ok: true, output: 'Made.' };
      } catch (err) {
        return toolRefusal(err);
      }
    },
  };
  const form = toolPageForm(page, {
    formid: 'add-key',
    url: '/admin/keys',
    configuration,
    action: { id: 'add', name: 'Make key' },
  });
  const outcome = await form.process();
  const keys = await deps.keys.list(page.admin.principal);
  const columns = [
    { label: 'Name', cell: (k: KeyView) => link(`/admin/keys/${encodeURIComponent(k.id)}`, k.name) },
    { label: 'Scopes', cell: scopesOf },
    { label: 'State', cell: (k: KeyView) => escapeHtml(k.state) },
    { label: 'Last use', cell: (k: KeyView) => when(k.lastUsed) },
    { label: 'Expires', cell: (k: KeyView) => when(k.expires) },
    { label: 'Made', cell: (k: KeyView) => when(k.created) },
  ];
  // The key's text, on this answer only: it is stored as a hash (docs/security.md, "API keys").
  const shown = made
    ? `<section class="card" role="status"><h2>Key ${escapeHtml(made.key.name)} made</h2>` +
      '<p>Copy it now: it is not shown again. Send it as <code>Authorization: Bearer …</code>.</p>' +
      `<p><code id="new-key">${escapeHtml(made.token)}</code></p></section>`
    : '';
  const body =
    shown +
    '<p class="muted">A key lets a server call Roost without an account: what it may do is its scopes. ' +
    'It never administers nor manages accounts or keys.</p>' +
    table('API keys', columns, keys, 'No API key yet.') +
    `<section class="card"><h2>Make an API key</h2>${outcome.html}</section>`;
  return {
    title: 'API keys',
    body,
    head: await form.htmlHead(),
    status: outcome.result === false ? 422 : 200,
  };
}

/** The lines of a `lines` field as one text. */
const linesOf = (value: unknown): string => (Array.isArray(value) ? value.join('\n') : String(value ?? ''));

async function keyPage(deps: KeyPagesDeps, page: AdminPageRequest) {
  const id = page.params.id ?? '';
  const key = await deps.keys.get(page.admin.principal, id);
  const url = `/admin/keys/${encodeURIComponent(id)}`;
  const revoke = accountConfirmForm(page, {
    formid: 'revoke-key',
    url,
    accountId: id,
    action: { id: 'revoke', name: 'Revoke key', cssClass: 'btn danger' },
    run: async () => {
      await deps.keys.revoke(page.admin.principal, id);
      return undefined;
    },
  });
  const revoked = await revoke.process();
  if (revoked.action.id === 'revoke' && revoked.result === true)
    return { redirect: url, messages: ['Key revoked: refused from now on, on every process.'] };
  const about = facts([
    ['Name', escapeHtml(key.name)],
    ['Id', `<code>${escapeHtml(key.id)}</code>`],
    ['Scopes', scopesOf(key)],
    ['State', escapeHtml(key.state)],
    ['Made', `${when(key.created)} by ${escapeHtml(key.createdBy)}`],
    ['Expires', when(key.expires) || 'never'],
    ['Last use', when(key.lastUsed) || 'never'],
    ['Revoked', when(key.revoked)],
  ]);
  const body =
    `<div class="card">${about}</div>` +
    (key.state === 'revoked' ? '' : `<section class="card"><h2>Revoke</h2>${revoked.html}</section>`) +
    `<p>${link('/admin/keys', '← All API keys')}</p>`;
  return { title: `API key ${key.name}`, body, head: await revoke.htmlHead() };
}

export function registerKeyPages(pages: AdminPages, deps: KeyPagesDeps): void {
  pages.page('/admin/keys', (page) => listPage(deps, page));
  pages.page('/admin/keys/:id', (page) => keyPage(deps, page));
}
