import { escapeHtml } from '@roost/forms';
import { METHOD_FIGURES, type UserService } from '../../users/index.js';
import { facts, link, textParam } from '../page-kit/page-parts.js';
import { sessionsButton, sessionsTable } from '../page-kit/sessions-table.js';
import type { AdminPageRequest, AdminPages } from './admin-routes.js';
import { accountConfirmForm } from './confirm-form.js';

/**
 * `/admin/users/<id>/security`: an account's sign-in methods and sessions for administrators
 * (docs/admin.md). Shows whether it has an authenticator app, its recovery codes left and
 * whether its groups require a second factor; resets the second factor (a lost phone) after a
 * confirmation; ends one session or all of them. The same calls as the API's `userFactors`,
 * `resetSecondFactor`, `userSessions` and `revokeUserSessions`.
 */
async function securityPage(users: UserService, page: AdminPageRequest) {
  const user = await users.getUser(page.admin, { identity: page.params.id ?? '' });
  const url = `/admin/users/${encodeURIComponent(user.id)}/security`;
  const body = page.form.body ?? {};
  if (page.request.method === 'POST' && (body.endSession$ !== undefined || body.endAll$ !== undefined)) {
    const session = body.endSession$ !== undefined ? textParam(body.session) : undefined;
    await users.revokeUserSessions(page.admin, { identity: user.id, ...(session !== undefined ? { session } : {}) });
    return {
      redirect: url,
      messages: [session ? 'The session has ended.' : `Every session of ${user.name} has ended.`],
    };
  }
  const reset = accountConfirmForm(page, {
    formid: 'reset2fa',
    url,
    accountId: user.id,
    action: { id: 'reset', name: 'Reset the second factor', cssClass: 'btn danger' },
    async run() {
      await users.resetSecondFactor(page.admin, { identity: user.id });
      return undefined;
    },
  });
  const { result, html, response, action } = await reset.process({ redirectCancel: url });
  if (response) return { response };
  if (action.id === 'reset' && result)
    return {
      redirect: url,
      messages: [`The second factor of ${user.name} is reset: the password alone signs in (or sets a new one up).`],
    };
  const factor = await users.userFactors(page.admin, { identity: user.id });
  const sessions = await users.userSessions(page.admin, { identity: user.id });
  const csrf = page.hidden.csrf ?? '';
  // The sign-in methods' figures (users/signin-method.ts): the app, recovery codes left, passkeys.
  const figures = (leads: boolean) =>
    Object.entries(METHOD_FIGURES)
      .filter(([, figure]) => (figure.leads === true) === leads)
      .map(([name, figure]): [string, string] => {
        const value = factor[name as keyof typeof METHOD_FIGURES];
        return [figure.label, typeof value === 'boolean' ? (value ? 'Set up' : 'None') : String(value)];
      });
  const factorFacts = facts([
    ...figures(true),
    ['Second factor required', factor.required ? 'Yes (by a group of the settings)' : 'No'],
    ['Sign-in providers', escapeHtml(factor.providers.join(', ')) || 'None'],
    ...figures(false),
  ]);
  // The factors that make the password alone not enough (an app, a phone): losing one locks the account out.
  const resetPart =
    factor.totp || factor.sms
      ? `<p>A user who lost the phone and the recovery codes signs in with the password alone after a reset.</p>${html}`
      : '';
  const endAll = sessions.length > 0 ? sessionsButton(url, csrf, 'endAll', 'End every session') : '';
  return {
    title: `Sign-in of ${user.name}`,
    body:
      `<div class="card"><h2>Second factor</h2>${factorFacts}${resetPart}</div>` +
      `<div class="card"><h2>Sessions</h2>${sessionsTable(sessions, url, csrf)}${endAll}</div>` +
      `<p>${link(`/admin/users/${encodeURIComponent(user.id)}`, `← ${user.name}`)}</p>`,
    status: result === false ? 422 : 200,
  };
}

export function registerUserSecurityPage(pages: AdminPages, users: UserService): void {
  pages.page('/admin/users/:id/security', (page) => securityPage(users, page));
}
