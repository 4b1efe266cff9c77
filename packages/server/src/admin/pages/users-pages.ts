import { escapeHtml, HTMLForm, ObjectForm, type ContentObject, type FieldConf } from '@roost/forms';
import { ADMINS } from '../../core/permissions.js';
import { groupsProblem } from './account-pages.js';
import { isRoostError, RoostError } from '../../core/errors.js';
import { formatTime } from '../../core/clock.js';
import type { User, UserQuery, UserService, UserValues } from '../../users/index.js';
import { formBase, type AdminPages, type AdminPageRequest } from './admin-routes.js';
import { accountConfirmForm } from './confirm-form.js';
import { bulkDelete } from '../page-kit/bulk-delete.js';
import { bulkDeleteForm, listTable, sortOf, sortParam, type ListColumn } from '../page-kit/list-table.js';
import { facts, link, pager, textParam } from '../page-kit/page-parts.js';

/**
 * `/admin/users`: the accounts with search, sort by a column's header, paging and the bulk
 * removal of checked accounts (`/admin/users/delete`); `/admin/users/<id>`: edit one
 * (realname, email, groups, active: disabling and reactivating); `/admin/users/<id>/remove`:
 * remove one after a confirmation. Every change runs the user service's administrator
 * operations (`setUser`, `removeUser`) with the administrator as caller, so the pages and the
 * API follow the same rules.
 */

const PAGE_SIZE = 20;
/** The columns the user service sorts by (`UserQuery.sort`). */
const USER_SORTS = ['name', 'realname', 'email', 'created', 'activity'] as const;

/** Group names a page may give: letters, digits and `. _ : @ -` (never a `sys:` pseudo-group). */

const STATE_LABELS: Record<string, string> = { active: 'active', disabled: 'disabled', pending: 'pending' };

/** A state as a small badge. */
export function stateBadge(state: string): string {
  return `<span class="badge badge-${escapeHtml(state)}">${escapeHtml(STATE_LABELS[state] ?? state)}</span>`;
}

/** The account states a list filters by (`all` for any), and what each asks `list` for. */
export const STATE_FILTER = [
  { id: 'all', name: 'All' },
  { id: 'active', name: 'Active' },
  { id: 'disabled', name: 'Disabled' },
  { id: 'pending', name: 'Pending' },
];

export function stateQuery(state: unknown): Record<string, boolean> {
  return state === 'active'
    ? { active: true }
    : state === 'disabled'
      ? { active: false }
      : state === 'pending'
        ? { pending: true }
        : {};
}

const searchFields: FieldConf[] = [
  { id: 'search', name: 'Search', datatype: 'string', size: 254, description: 'Part of a name, email or real name.' },
  { id: 'state', name: 'State', datatype: 'list', listItems: STATE_FILTER },
  { id: 'group', name: 'Group', datatype: 'string', size: 100 },
  // The sort of the table's headers rides along, checked by `sortOf` (page-kit/list-table.ts).
  { id: 'sort', datatype: 'hidden' },
  {
    id: 'start',
    name: 'Start',
    datatype: 'number',
    hidden: true,
    validator: (v) => (typeof v === 'number' && (v < 1 || v > 1e9) ? 'Start must be 1 or more.' : undefined),
  },
];

async function listPage(users: UserService, page: AdminPageRequest) {
  const { admin, form } = page;
  const search = new HTMLForm({
    ...formBase('search', {}, '/admin/users'),
    request: form,
    method: 'GET',
    css_class: 'form search-form',
    fields: searchFields,
    widget: { item_template: 'field_onecolumn', action_template: 'form_actions_onecolumn' },
    actions: [{ id: 'search', method: 'startForm', name: 'Search', cssClass: 'btn btn-primary' }],
  });
  await search.setup();
  const [ok, data, errors] = await search.validate(search.getFormValues());
  const formHtml = await search.render(data, [], errors);
  if (!ok) return { title: 'Users', body: `<div class="card">${formHtml}</div>`, status: 422 };

  const start = typeof data.start === 'number' ? data.start : 1;
  const state = typeof data.state === 'string' ? data.state : 'all';
  const sort = sortOf(textParam(page.form.query?.sort), USER_SORTS);
  const query: UserQuery = {
    start,
    size: PAGE_SIZE,
    sort: (sort?.key as UserQuery['sort']) ?? 'name',
    order: sort?.descending ? '>' : '<',
    ...stateQuery(state),
  };
  if (typeof data.search === 'string' && data.search) query.search = data.search;
  if (typeof data.group === 'string' && data.group) query.group = data.group;
  const { users: found, total } = await users.list(admin, query);

  const url = (u: User) => `/admin/users/${encodeURIComponent(u.id)}`;
  const columns: ListColumn<User>[] = [
    { label: 'Name', cell: (u) => link(url(u), u.name), sort: 'name' },
    { label: 'Real name', cell: (u) => escapeHtml(u.realname), sort: 'realname' },
    { label: 'Email', cell: (u) => escapeHtml(u.email ?? ''), sort: 'email' },
    { label: 'Groups', cell: (u) => escapeHtml(u.groups.join(', ')) },
    { label: 'State', cell: (u) => stateBadge(u.state) },
    { label: 'Created', cell: (u) => escapeHtml(formatTime(u.created)), sort: 'created' },
    { label: 'Last activity', cell: (u) => escapeHtml(formatTime(u.activity)), sort: 'activity' },
    { label: 'Actions', cell: (u) => `${link(url(u), 'Edit')} · ${link(`${url(u)}/remove`, 'Remove')}` },
  ];
  const params: Record<string, string> = {};
  for (const key of ['search', 'group'] as const)
    if (typeof data[key] === 'string' && data[key]) params[key] = data[key];
  if (state !== 'all') params.state = state;
  const listed = (more: Record<string, string>) => `/admin/users?${new URLSearchParams({ ...params, ...more })}`;
  const sorted: Record<string, string> = sort ? { sort: sortParam(sort) } : {};
  const body =
    `<div class="card">${formHtml}</div>` +
    `<p>${link('/admin/users/new', 'New account', ' class="btn btn-primary"')}</p>` +
    listTable({
      caption: 'Accounts',
      columns,
      rows: found,
      empty: 'No account matches.',
      sort,
      sortHref: (next) => listed({ sort: next }),
      select: { form: 'bulk-delete', value: (u) => u.id, label: (u) => u.name },
    }) +
    (found.length
      ? bulkDeleteForm('bulk-delete', '/admin/users/delete', page.hidden.csrf ?? '', 'Remove the selected accounts…')
      : '') +
    pager('accounts', { start, size: PAGE_SIZE, total, shown: found.length }, (n) =>
      listed({ ...sorted, start: String(n) }),
    );
  return { title: 'Users', body };
}

/** `/admin/users/delete`: the bulk removal of the list's checked accounts (page-kit/bulk-delete.ts). */
function bulkRemovePage(users: UserService, page: AdminPageRequest) {
  return bulkDelete(page.request.method, page.form, {
    noun: ['account', 'accounts'],
    listUrl: '/admin/users',
    actionUrl: '/admin/users/delete',
    csrf: page.hidden.csrf ?? '',
    describe: (ids) => users.directory.namesOf(ids),
    async remove(id) {
      // As on the remove page: an administrator does not remove their own account from a list.
      if (id === page.admin.user.id)
        throw new RoostError('invalid', 'validation_failure', 'You cannot remove your own account here.');
      await users.removeUser(page.admin, { identity: id });
      return true;
    },
  });
}

/** The account as a content object, so an `ObjectForm` edits it; saving runs `setUser`. */
function userObject(users: UserService, page: AdminPageRequest, user: User): ContentObject {
  return {
    id: user.id,
    type: 'user',
    data: { realname: user.realname, email: user.email ?? '', groups: user.groups, active: user.state === 'active' },
    meta: {},
    parent: undefined,
    configuration: undefined,
    async update(values) {
      const change: UserValues = {
        realname: typeof values.realname === 'string' ? values.realname : '',
        groups: Array.isArray(values.groups) ? values.groups.map(String) : [],
      };
      if (typeof values.email === 'string' && values.email !== '' && values.email !== user.email)
        change.email = values.email;
      // A pending account stays pending unless it is activated here (its review is on the sign-ups page).
      if (!(user.state === 'pending' && values.active !== true)) change.active = values.active === true;
      await users.setUser(page.admin, { identity: user.id, values: change });
      return true;
    },
    create: () => Promise.reject(new Error('accounts have no children')),
    children: async () => [],
    wfAction: async () => false,
  };
}

function editFields(users: UserService, page: AdminPageRequest, user: User): FieldConf[] {
  const self = user.id === page.admin.user.id;
  return [
    { id: 'realname', name: 'Real name', datatype: 'string', size: 255 },
    {
      id: 'email',
      name: 'Email',
      datatype: 'email',
      size: 254,
      required: !!user.email,
      async validator(value) {
        if (typeof value !== 'string' || value === '' || value.toLowerCase() === (user.email ?? '').toLowerCase())
          return undefined;
        const owner = await users.getUser(page.admin, { identity: value }).catch((err: unknown) => {
          if (isRoostError(err) && err.code === 'unknown_user') return null;
          throw err;
        });
        return owner && owner.id !== user.id ? 'Another account has this email.' : undefined;
      },
    },
    {
      id: 'groups',
      name: 'Groups',
      datatype: 'lines',
      size: 5000,
      settings: { rows: 3 },
      description: 'One group per line, e.g. admins.',
      validator(value) {
        const groups = Array.isArray(value) ? (value as string[]) : [];
        if (self && !groups.includes(ADMINS))
          return groupsProblem(groups) ?? 'You cannot take yourself out of admins here.';
        return groupsProblem(groups);
      },
    },
    {
      id: 'active',
      name: 'Active',
      datatype: 'checkbox',
      description:
        user.state === 'pending'
          ? 'Pending: check to activate without a review.'
          : 'Uncheck to disable the account (it is signed out); check to reactivate it.',
      validator: (value) => (self && value === false ? 'You cannot disable your own account here.' : undefined),
    },
  ];
}

function findUser(users: UserService, page: AdminPageRequest): Promise<User> {
  return users.getUser(page.admin, { identity: page.params.id ?? '' });
}

function summary(user: User): string {
  return facts([
    ['Name', escapeHtml(user.name)],
    ['State', stateBadge(user.state)],
    ['Created', escapeHtml(formatTime(user.created))],
    ['Last activity', escapeHtml(formatTime(user.activity) || '–')],
    ['Id', `<code>${escapeHtml(user.id)}</code>`],
  ]);
}

async function editPage(users: UserService, page: AdminPageRequest) {
  const user = await findUser(users, page);
  const url = `/admin/users/${encodeURIComponent(user.id)}`;
  const form = new ObjectForm({
    ...formBase('user', page.hidden, url),
    request: page.form,
    context: userObject(users, page, user),
    fields: editFields(users, page, user),
  });
  await form.setup('edit');
  const { result, html, response } = await form.process({ redirectSuccess: url, redirectCancel: '/admin/users' });
  if (response) return { response };
  const body =
    `<div class="card">${summary(user)}</div><div class="card">${html}</div>` +
    `<p>${link('/admin/users', '← All users')} · ${link(`${url}/password`, 'Set a password')} · ` +
    `${link(`${url}/security`, 'Second factor and sessions')} · ` +
    `${link(`${url}/reset`, 'Send a password-reset mail')} · ` +
    `${link(`${url}/impersonate`, 'Act as this user')} · ` +
    `${link(`${url}/remove`, 'Remove this account', ' class="danger-link"')}</p>`;
  return { title: `User ${user.name}`, body, head: await form.htmlHead(), status: result === false ? 422 : 200 };
}

async function removePage(users: UserService, page: AdminPageRequest) {
  const user = await findUser(users, page);
  const self = user.id === page.admin.user.id;
  const form = accountConfirmForm(page, {
    formid: 'remove',
    url: `/admin/users/${encodeURIComponent(user.id)}/remove`,
    accountId: user.id,
    action: { id: 'remove', name: 'Remove for good', cssClass: 'btn danger' },
    async run() {
      if (self) return 'You cannot remove your own account here.';
      await users.removeUser(page.admin, { identity: user.id });
      return undefined;
    },
  });
  const { result, html, response, action } = await form.process({
    redirectCancel: `/admin/users/${encodeURIComponent(user.id)}`,
  });
  if (response) return { response };
  if (action.id === 'remove' && result)
    return { redirect: '/admin/users', messages: [`The account ${user.name} was removed.`] };
  const body =
    '<div class="card"><p>Remove the account ' +
    `<strong>${escapeHtml(user.name)}</strong>${user.email ? ` (${escapeHtml(user.email)})` : ''}? ` +
    'It cannot be restored; its name and email become free for new accounts. Items and files it owns stay in the ' +
    `stores.</p>${summary(user)}${html}</div>`;
  return { title: `Remove ${user.name}`, body, status: result === false ? 422 : 200 };
}

export function registerUsersPages(pages: AdminPages, users: UserService): void {
  pages.page('/admin/users', (page) => listPage(users, page), { post: false });
  pages.page('/admin/users/delete', (page) => bulkRemovePage(users, page));
  pages.page('/admin/users/:id', (page) => editPage(users, page));
  pages.page('/admin/users/:id/remove', (page) => removePage(users, page));
}
