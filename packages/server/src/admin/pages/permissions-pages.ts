import { escapeHtml, hiddenValueInputs, JsonSequenceForm, type ContentObject, type FieldConf } from '@roost/forms';
import { RoostError } from '../../core/errors.js';
import { ADMINS, AUTHENTICATED, EVERYONE, isGroupName, NOONE, OWNER, REGISTERED } from '../../core/permissions.js';
import type { PermissionTarget } from '../../core/service-kind.js';
import type { Caller } from '../../users/index.js';
import { formBase, type AdminPages, type AdminPageRequest } from './admin-routes.js';
import { link, table, textParam } from '../page-kit/page-parts.js';

/**
 * `/admin/permissions`: the services (the user service, every data store, every file store);
 * `/admin/permissions/<service>`: its entries, edited as a list with a `JsonSequenceForm`
 * (one item per permission granted to somebody; deleting an item grants it to nobody). Saving
 * runs the service's own `setPermissions` with `replace` for each entry that changed, so the
 * API follows at once (other processes within a second, as the permission store caches).
 */

interface Entry {
  permission: string;
  groups: readonly string[];
}

/** Every service with entries, from the service kinds (src/service-kinds.ts), in their order. */
type ServicesOf = () => ReadonlyArray<PermissionTarget<Caller>>;

/** One service's permission operations for the administrator of the request, whatever its kind. */
interface PermissionService {
  name: string;
  kind: string;
  get(): Promise<Entry[]>;
  set(changes: { permission: string; groups: string[]; action: 'replace' }[]): Promise<void>;
}

function servicesFor(services: ServicesOf, admin: AdminPageRequest['admin']): PermissionService[] {
  return services().map((target) => ({
    name: target.name,
    kind: target.label,
    get: () => target.entries(admin),
    set: (changes) => target.change(admin, changes),
  }));
}

const PSEUDO_GROUPS = [EVERYONE, AUTHENTICATED, REGISTERED, OWNER, NOONE];

function entryFields(names: readonly string[]): FieldConf[] {
  return [
    {
      id: 'permission',
      name: 'Permission',
      datatype: 'list',
      required: true,
      settings: { addempty: true },
      listItems: names.map((n) => ({ id: n, name: n })),
    },
    {
      id: 'groups',
      name: 'Groups',
      datatype: 'lines',
      size: 5000,
      required: true,
      settings: { rows: 3 },
      description: `One group per line: a group of accounts (e.g. ${ADMINS}) or ${PSEUDO_GROUPS.join(', ')}.`,
      validator(value) {
        const groups = Array.isArray(value) ? (value as string[]) : [];
        if (groups.length > 50) return 'At most 50 groups.';
        const bad = groups.find((g) => !(PSEUDO_GROUPS.includes(g) || isGroupName(g)));
        return bad === undefined
          ? undefined
          : `"${bad.slice(0, 40)}" is not a group: letters, digits and . _ : @ - (at most 100), or one of ` +
              `${PSEUDO_GROUPS.join(', ')}.`;
      },
    },
  ];
}

/**
 * The service's entries as a content object: `data.entries` lists those granted to somebody;
 * `update` compares by permission name (not by position, which may have moved meanwhile) and
 * replaces what changed; a permission left out is granted to nobody.
 */
function entriesObject(service: PermissionService, current: Entry[]): ContentObject {
  const granted = current.filter((e) => e.groups.length > 0);
  return {
    id: service.name,
    type: 'permissions',
    data: { entries: granted },
    meta: {},
    parent: undefined,
    configuration: undefined,
    async update(values) {
      const next = new Map(
        ((values.entries as Entry[] | undefined) ?? []).map((e) => [e.permission, [...new Set(e.groups)]]),
      );
      const changes: { permission: string; groups: string[]; action: 'replace' }[] = [];
      for (const [permission, groups] of next) {
        const before = current.find((e) => e.permission === permission)?.groups ?? [];
        if (groups.join('\n') !== before.join('\n')) changes.push({ permission, groups, action: 'replace' });
      }
      for (const e of granted)
        if (!next.has(e.permission)) changes.push({ permission: e.permission, groups: [], action: 'replace' });
      if (changes.length) await service.set(changes);
      return true;
    },
    create: () => Promise.reject(new Error('permission lists have no children')),
    children: async () => [],
    wfAction: async () => false,
  };
}

async function indexPage(services: ServicesOf, page: AdminPageRequest) {
  const columns = [
    {
      label: 'Service',
      cell: (s: PermissionService) => link(`/admin/permissions/${encodeURIComponent(s.name)}`, s.name),
    },
    { label: 'Kind', cell: (s: PermissionService) => escapeHtml(s.kind) },
  ];
  const list = table('Services', columns, servicesFor(services, page.admin), 'No services.');
  return {
    title: 'Permissions',
    body: `<p class="muted">Each service keeps its own entries: permission → the groups that hold it.</p>${list}`,
  };
}

async function servicePage(services: ServicesOf, page: AdminPageRequest) {
  const service = servicesFor(services, page.admin).find((s) => s.name === page.params.service);
  if (!service) throw new RoostError('not_found', 'not_found', 'There is no service of that name.');
  const current = await service.get();
  const url = `/admin/permissions/${encodeURIComponent(service.name)}`;
  const form = new JsonSequenceForm({
    ...formBase('permission', page.hidden, url),
    request: page.form,
    context: entriesObject(service, current),
    jsonDataField: 'entries',
    jsonUniqueID: 'permission',
    fields: entryFields(current.map((e) => e.permission)),
    // The library's words, said for this list.
    catalogs: {
      en: {
        'Item exists!': 'This permission has an entry already: edit it in the list below.',
        'Item not found': 'There is no such entry (the list has changed): load the page again.',
      },
    },
    itemLabel: (item) => `${String(item.permission)}: ${Array.isArray(item.groups) ? item.groups.join(', ') : ''}`,
    widget: { item_template: 'field_onecolumn', action_template: 'form_actions_onecolumn' },
  });
  const asked = deleteToConfirm(form, page, current);
  if (asked) return confirmDeletePage(service, page, url, form.delKey, asked);
  let deleted = false;
  form.listenEvent('delete', () => {
    deleted = true;
  });
  const { result, html, action } = await form.process();
  // After a change the page is loaded again, so the list shows the entries as they are now.
  if (result !== false && page.request.method === 'POST') {
    if (action.id === 'edit') return { redirect: url, messages: ['Entry saved. The API follows it now.'] };
    if (deleted) return { redirect: url, messages: ['Entry deleted: nobody holds the permission now.'] };
  }
  const nobody = current.filter((e) => e.groups.length === 0).map((e) => e.permission);
  const body =
    `<p class="muted">The ${escapeHtml(service.kind)} <strong>${escapeHtml(service.name)}</strong>. Add an entry, ` +
    'or edit or delete one below; deleting grants the permission to nobody.</p>' +
    `<div class="card permissions">${html}</div>` +
    (nobody.length ? `<p class="muted">Granted to nobody: ${escapeHtml(nobody.join(', '))}.</p>` : '') +
    `<p>${link('/admin/permissions', '← All services')}</p>`;
  return {
    title: `Permissions of ${service.name}`,
    body,
    head: await form.htmlHead(),
    status: result === false ? 422 : 200,
  };
}

/**
 * A delete button posts the entry's position; like the other deletions of the backend it asks
 * first. The confirmation posts the permission's name beside the position, so an entry that
 * moved meanwhile is not the one deleted (the library answers "Item not found" then).
 * Returns the entry to ask about, or undefined when the post goes ahead.
 */
function deleteToConfirm(
  form: JsonSequenceForm,
  page: AdminPageRequest,
  current: Entry[],
): { position: number; entry: Entry } | undefined {
  const body = page.request.method === 'POST' ? page.form.body : undefined;
  const position = Number(textParam(body?.[form.delKey]));
  if (!Number.isInteger(position) || position < 1) return undefined;
  const entry = current.filter((e) => e.groups.length > 0)[position - 1];
  if (!entry) return undefined;
  if (textParam(body?.confirm) === entry.permission) return undefined;
  return { position, entry };
}

function confirmDeletePage(
  service: PermissionService,
  page: AdminPageRequest,
  url: string,
  delKey: string,
  asked: { position: number; entry: Entry },
) {
  const hidden = hiddenValueInputs({
    ...page.hidden,
    [delKey]: String(asked.position),
    confirm: asked.entry.permission,
  });
  const body =
    `<div class="card confirm"><p>Delete the entry <code>${escapeHtml(asked.entry.permission)}</code> ` +
    `(${escapeHtml(asked.entry.groups.join(', '))}) of ${escapeHtml(service.name)}? ` +
    `Nobody holds the permission then, until it is granted again.</p>` +
    `<form method="post" action="${escapeHtml(url)}">${hidden}<button type="submit" class="btn danger">Delete the ` +
    `entry</button> ${link(url, 'Cancel')}</form></div>`;
  return { title: `Delete ${asked.entry.permission}?`, body };
}

export function registerPermissionsPages(pages: AdminPages, services: ServicesOf): void {
  pages.page('/admin/permissions', (page) => indexPage(services, page), { post: false });
  pages.page('/admin/permissions/:service', (page) => servicePage(services, page));
}
