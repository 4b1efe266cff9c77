import { escapeHtml, type FieldConf } from '@roost/forms';
import type { Config } from '../../core/config.js';
import { commonErrors } from '../../core/errors.js';
import { withClient } from '../../http/auth.js';
import { groupListProblem } from '../../core/permissions.js';
import { ANONYMOUS_CALLER, DuplicateUserError, type User, type UserService } from '../../users/index.js';
import { PageForm } from '../page-kit/page-form.js';
import { link } from '../page-kit/page-parts.js';
import { accountConfirmForm } from './confirm-form.js';
import { formBase, type AdminPages, type AdminPageRequest } from './admin-routes.js';
import { invalidField } from '../../core/validation.js';

/**
 * Account recovery from the management backend (docs/admin.md): `/admin/users/new` makes an
 * account, `/admin/users/<id>/password` sets one's password (its sessions end), and
 * `/admin/users/<id>/reset` sends it the password-reset mail. The same rules as the CLI and the
 * API: the sign-up rules for names, emails and passwords (`checkNewAccount`), group names by
 * `isGroupName` (core/permissions.ts), `setUser` and `resetPassword` for the changes.
 */

/** The length rules of the configuration (`users.nameMinLength`, `users.passwordMinLength`). */
type AccountRules = Pick<Config['users'], 'nameMinLength' | 'passwordMinLength'>;

const userUrl = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

function passwordField(minLength: number): FieldConf {
  return {
    id: 'password',
    name: 'Password',
    datatype: 'password',
    required: true,
    size: 256,
    settings: { minLength, autocomplete: 'new-password' },
    description: `At least ${minLength} characters.`,
  };
}

/** A list of groups as the field shows its problem. */
export function groupsProblem(value: unknown): string | undefined {
  const problem = groupListProblem(Array.isArray(value) ? (value as string[]) : []);
  return problem && `${problem[0]?.toUpperCase()}${problem.slice(1)}.`;
}

async function newAccountPage(users: UserService, rules: AccountRules, page: AdminPageRequest) {
  const { nameMinLength, passwordMinLength } = rules;
  let made: User | null = null;
  const form = new PageForm({
    ...formBase('newuser', page.hidden, '/admin/users/new'),
    request: page.form,
    fields: [
      {
        id: 'name',
        name: 'Name',
        datatype: 'string',
        required: true,
        size: 40,
        description: `At least ${nameMinLength} characters: letters, digits, ".", "_" and "-".`,
        settings: { autocomplete: 'off' },
      },
      { id: 'email', name: 'Email', datatype: 'email', required: true, size: 254, settings: { autocomplete: 'off' } },
      passwordField(passwordMinLength),
      { id: 'realname', name: 'Real name', datatype: 'string', size: 255 },
      {
        id: 'groups',
        name: 'Groups',
        datatype: 'lines',
        size: 5000,
        settings: { rows: 3 },
        description: 'One group per line; admins makes an administrator.',
        validator: groupsProblem,
      },
    ],
    actions: [{ id: 'create', method: 'submit', name: 'Create the account', cssClass: 'btn btn-primary' }],
    perform: async (data) => {
      const account = {
        name: String(data.name ?? ''),
        email: String(data.email ?? ''),
        password: String(data.password ?? ''),
      };
      const problems = users.checkNewAccount(account);
      if (problems.length) throw commonErrors.validation_failure({ fields: problems });
      const groups = Array.isArray(data.groups) ? (data.groups as string[]) : [];
      try {
        const user = await users.createUser(page.admin, {
          ...account,
          realname: String(data.realname ?? ''),
          data: '',
          notify: false,
          groups: [...new Set(groups)],
          state: 'active',
          pending: null,
        });
        made = user;
      } catch (err) {
        if (err instanceof DuplicateUserError) throw invalidField(err.field, 'exists');
        throw err;
      }
    },
  });
  const { result, html, response } = await form.process({ renderSuccess: false });
  if (response) return { response };
  const created = made as User | null;
  if (result && created)
    return { redirect: userUrl(created.id), messages: [`The account ${created.name} was created.`] };
  return {
    title: 'New account',
    body: `<div class="card narrow">${html}</div><p>${link('/admin/users', '← All users')}</p>`,
    head: await form.htmlHead(),
    status: result === false ? 422 : 200,
  };
}

function findAccount(users: UserService, page: AdminPageRequest): Promise<User> {
  return users.getUser(page.admin, { identity: page.params.id ?? '' });
}

async function passwordPage(users: UserService, rules: AccountRules, page: AdminPageRequest) {
  const user = await findAccount(users, page);
  const url = `${userUrl(user.id)}/password`;
  const self = user.id === page.admin.user.id;
  let done = false;
  const form = new PageForm({
    ...formBase('password', page.hidden, url),
    request: page.form,
    fields: [passwordField(rules.passwordMinLength)],
    actions: [{ id: 'set', method: 'submit', name: 'Set the password', cssClass: 'btn btn-primary' }],
    perform: async (data) => {
      if (self)
        throw commonErrors.not_allowed({
          message:
            'Your own password is changed by signing in with it ' +
            '(updatePassword), not here: this page would sign you out.',
        });
      await users.setUser(page.admin, { identity: user.id, values: { password: String(data.password ?? '') } });
      done = true;
    },
  });
  const { result, html, response } = await form.process({ renderSuccess: false });
  if (response) return { response };
  if (result && done)
    return {
      redirect: userUrl(user.id),
      messages: [`The password of ${user.name} was set; the account's sessions were ended.`],
    };
  const body =
    `<div class="card narrow"><p>A new password for <strong>${escapeHtml(user.name)}</strong>. Tell it ` +
    `to them another way than by mail; every session of the account ends.</p>${html}</div>` +
    `<p>${link(userUrl(user.id), `← ${user.name}`)}</p>`;
  return { title: `Password of ${user.name}`, body, head: await form.htmlHead(), status: result === false ? 422 : 200 };
}

async function resetPage(users: UserService, page: AdminPageRequest) {
  const user = await findAccount(users, page);
  const url = `${userUrl(user.id)}/reset`;
  const form = accountConfirmForm(page, {
    formid: 'reset',
    url,
    accountId: user.id,
    action: { id: 'send', name: 'Send the reset mail', cssClass: 'btn btn-primary' },
    async run() {
      // The API's operation, as the user would call it: it sends the mail with the reset link.
      await users.resetPassword(withClient(ANONYMOUS_CALLER, page.request), { identity: user.email ?? '' });
      return undefined;
    },
  });
  if (!user.email) {
    return {
      title: `Reset mail for ${user.name}`,
      body:
        `<div class="card narrow"><p>${escapeHtml(user.name)} has no email address: set one on the account's ` +
        `page, or set a password here: ${link(`${userUrl(user.id)}/password`, 'Set a password')}.</p></div>`,
      status: 409,
    };
  }
  const { result, html, response, action } = await form.process({ redirectCancel: userUrl(user.id) });
  if (response) return { response };
  if (action.id === 'send' && result) {
    return {
      redirect: userUrl(user.id),
      messages: [
        `A password-reset mail to ${user.email} is queued (at most ${users.settings.mailsPerRecipient} mails an ` +
          'hour go to one address).',
      ],
    };
  }
  const body =
    `<div class="card narrow"><p>Send <strong>${escapeHtml(user.name)}</strong> a mail at ` +
    `<strong>${escapeHtml(user.email)}</strong> with a link to choose a new password? Their password stays as it ` +
    `is until they do.</p>${html}</div>`;
  return { title: `Reset mail for ${user.name}`, body, status: result === false ? 422 : 200 };
}

export function registerAccountPages(pages: AdminPages, users: UserService, rules: AccountRules): void {
  // Before `/admin/users/:id`, so that "new" is not taken for an id.
  pages.page('/admin/users/new', (page) => newAccountPage(users, rules, page));
  pages.page('/admin/users/:id/password', (page) => passwordPage(users, rules, page));
  pages.page('/admin/users/:id/reset', (page) => resetPage(users, page));
}
