import { escapeHtml, WorkflowForm, type ContentObject, type FieldConf } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { isRoostError } from '../../core/errors.js';
import { REVIEW_ACTIONS, userErrors, type User, type UserService } from '../../users/index.js';
import { formBase, startOf, type AdminPages, type AdminPageRequest } from './admin-routes.js';
import { accountConfirmForm } from './confirm-form.js';
import { facts, link, pager, table, textParam } from '../page-kit/page-parts.js';

/**
 * `/admin/signups`: the accounts waiting (for a review, or for their own mail confirmation),
 * each with a `WorkflowForm` of the review actions; `/admin/signups/<id>` shows one and takes
 * its decision. The decision runs the user service's `review`. With the form script, a decision
 * replaces its form by the result; without it, the page reloads with the result on top.
 */

type ReviewAction = (typeof REVIEW_ACTIONS)[number];

const DECISIONS: Record<ReviewAction, { label: string; done: (name: string) => string }> = {
  accept: { label: 'Accept (active; welcome mail)', done: (n) => `${n} was accepted and is active.` },
  optin: {
    label: 'Accept with email verification',
    done: (n) => `${n} was accepted; the account is active once the mailed link is used.`,
  },
  activate: { label: 'Activate (no mail)', done: (n) => `${n} was activated.` },
  reject: { label: 'Reject (remove, asks first)', done: (n) => `${n} was rejected and removed.` },
  disable: { label: 'Disable', done: (n) => `${n} was disabled.` },
};

const PAGE_SIZE = 20;

const decisionField: FieldConf = {
  id: 'action',
  name: 'Decision',
  datatype: 'list',
  required: true,
  listItems: [{ id: '', name: 'Choose…' }, ...REVIEW_ACTIONS.map((id) => ({ id, name: DECISIONS[id].label }))],
};

/** A pending account as a content object with the review workflow; a transition runs `review`. */
function pendingObject(users: UserService, page: AdminPageRequest, user: User): ContentObject {
  return {
    id: user.id,
    type: 'signup',
    data: { name: user.name, email: user.email ?? '' },
    meta: { pool_wfa: user.state },
    parent: undefined,
    // The transitions are the review actions, all from `pending`; `review` checks them.
    configuration: undefined,
    update: async () => false,
    create: () => Promise.reject(new Error('sign-ups have no children')),
    children: async () => [],
    async wfAction(action) {
      try {
        await users.review(page.admin, { identity: user.id, action });
        return true;
      } catch (err) {
        // Reviewed meanwhile (by someone else, or by its own activation): the form says so.
        if (isRoostError(err) && err.code === 'not_pending') return false;
        throw err;
      }
    },
  };
}

function reviewForm(users: UserService, page: AdminPageRequest, user: User, n: number): WorkflowForm {
  return new WorkflowForm({
    ...formBase(`review-${n}`, page.hidden, `/admin/signups/${encodeURIComponent(user.id)}`),
    request: page.form,
    context: pendingObject(users, page, user),
    fields: [decisionField],
    actions: [
      { id: 'default', method: 'startForm', hidden: true },
      { id: 'submit', method: 'callWf', name: 'Decide', cssClass: 'btn btn-primary' },
    ],
    use_ajax: true,
    catalogs: {
      en: {
        'Workflow action not allowed': 'This account is not waiting any more: it was reviewed or activated meanwhile.',
      },
    },
    css_class: 'form inline-form',
    widget: { item_template: 'field_onecolumn', action_template: 'form_actions_onecolumn' },
  });
}

/** The account of the page's address, read as the administrator (the `getUser` permission), or `unknown_user`. */
async function pendingAccount(users: UserService, page: AdminPageRequest): Promise<User> {
  const identity = page.params.id ?? '';
  if (!identity) throw userErrors.unknown_user();
  return users.getUser(page.admin, { identity });
}

const waitsFor = (user: User) => (user.pending === 'optin' ? 'its mail confirmation' : 'a review');

async function listPage(users: UserService, page: AdminPageRequest) {
  const start = startOf(page);
  // Read as the administrator, through the `list` permission (users/admin-ops.ts).
  const { users: pending, total } = await users.list(page.admin, {
    pending: true,
    start,
    sort: 'created',
    size: PAGE_SIZE,
  });
  const rows = await Promise.all(
    pending.map(async (user, i) => ({ user, form: (await reviewForm(users, page, user, i + 1).process()).html })),
  );
  type Row = (typeof rows)[number];
  const columns = [
    { label: 'Name', cell: (r: Row) => link(`/admin/signups/${encodeURIComponent(r.user.id)}`, r.user.name) },
    { label: 'Email', cell: (r: Row) => escapeHtml(r.user.email ?? '') },
    { label: 'Real name', cell: (r: Row) => escapeHtml(r.user.realname) },
    { label: 'Signed up (UTC)', cell: (r: Row) => escapeHtml(formatTime(r.user.created)) },
    { label: 'Waits for', cell: (r: Row) => escapeHtml(waitsFor(r.user)) },
    { label: 'Decision', cell: (r: Row) => r.form },
  ];
  const head = pending.length ? await reviewForm(users, page, pending[0]!, 0).htmlHead() : '';
  const body =
    '<p class="muted">Accounts that signed up and are not active yet. Sign-ups by <code>signupReview</code> wait ' +
    'for you; those by <code>signupOptin</code> (or accepted with email verification) wait for their own mail ' +
    'confirmation, which you may also take over.</p>' +
    table('Sign-ups waiting', columns, rows, 'No sign-up is waiting.') +
    pager('sign-ups', { start, size: PAGE_SIZE, total, shown: rows.length }, (n) => `/admin/signups?start=${n}`);
  return { title: 'Sign-ups', body, head };
}

async function reviewPage(users: UserService, page: AdminPageRequest) {
  const user = await pendingAccount(users, page);
  if (user.state !== 'pending')
    return { redirect: '/admin/signups', messages: [`${user.name} is not waiting for a review.`] };
  const chosen = textParam(page.form.body?.action) as ReviewAction;
  // Rejecting removes the account, so it asks first, as the backend's other deletions do.
  if (page.request.method === 'POST' && chosen === 'reject') return { redirect: rejectUrl(user) };
  const form = reviewForm(users, page, user, 0);
  const done = DECISIONS[chosen]?.done(user.name);
  const { result, html, response } = await form.process({
    ...(done ? { success_message: done } : {}),
    // Without the script the page reloads with the result; with it only the form is replaced.
    ...(page.xhr ? { renderSuccess: false } : { redirectSuccess: '/admin/signups' }),
  });
  if (response) return { response };
  const body =
    `<div class="card">${facts([
      ['Name', escapeHtml(user.name)],
      ['Email', escapeHtml(user.email ?? '')],
      ['Real name', escapeHtml(user.realname)],
      ['Waits for', escapeHtml(waitsFor(user))],
    ])}${html}</div>` + `<p>${link('/admin/signups', '← All sign-ups')}</p>`;
  return { title: `Sign-up of ${user.name}`, body, head: await form.htmlHead(), status: result === false ? 422 : 200 };
}

const rejectUrl = (user: User) => `/admin/signups/${encodeURIComponent(user.id)}/reject`;

/** `/admin/signups/<id>/reject`: the confirmation of a rejection, which removes the account. */
async function rejectPage(users: UserService, page: AdminPageRequest) {
  const user = await pendingAccount(users, page);
  if (user.state !== 'pending')
    return { redirect: '/admin/signups', messages: [`${user.name} is not waiting for a review.`] };
  const form = accountConfirmForm(page, {
    formid: 'reject',
    url: rejectUrl(user),
    accountId: user.id,
    action: { id: 'reject', name: 'Reject and remove', cssClass: 'btn danger' },
    async run() {
      try {
        await users.review(page.admin, { identity: user.id, action: 'reject' });
        return undefined;
      } catch (err) {
        if (!(isRoostError(err) && err.code === 'not_pending')) throw err;
        return 'This account is not waiting any more: it was reviewed or activated meanwhile.';
      }
    },
  });
  const { result, html, response, action } = await form.process({
    redirectCancel: `/admin/signups/${encodeURIComponent(user.id)}`,
  });
  if (response) return { response };
  if (action.id === 'reject' && result)
    return { redirect: '/admin/signups', messages: [DECISIONS.reject.done(user.name)] };
  const body =
    '<div class="card confirm"><p>Reject the sign-up of ' +
    `<strong>${escapeHtml(user.name)}</strong>${user.email ? ` (${escapeHtml(user.email)})` : ''}? ` +
    `The account is removed; no mail is sent, and the name and email become free for new sign-ups.</p>${html}</div>`;
  return { title: `Reject ${user.name}?`, body, status: result === false ? 422 : 200 };
}

export function registerSignupsPages(pages: AdminPages, users: UserService): void {
  pages.page('/admin/signups', (page) => listPage(users, page), { post: false });
  pages.page('/admin/signups/:id', (page) => reviewPage(users, page));
  pages.page('/admin/signups/:id/reject', (page) => rejectPage(users, page));
}
