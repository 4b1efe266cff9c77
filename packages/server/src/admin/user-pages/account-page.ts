import { escapeHtml, type FieldConf } from '@roost/forms';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, type RequestCaller } from '../../http/auth.js';
import type { ListedSession, TotpSetup, UserService } from '../../users/index.js';
import { assertCsrf, csrfTokenOf } from '../csrf.js';
import type { PageDeps } from '../index.js';
import { PageForm, type PerformOutcome } from '../page-kit/page-form.js';
import { textParam } from '../page-kit/page-parts.js';
import { sessionsButton, sessionsTable } from '../page-kit/sessions-table.js';
import { flash, sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { publicFormRequest, renderPublicPage } from './public-page.js';
import { recoveryCodesHtml, totpSetupHtml } from '../pages/second-step-form.js';
import { METHOD_PAGES } from '../signin-methods/index.js';

/**
 * `/users/account`: the signed-in user's sign-in methods and sessions (docs/users.md). Sets up
 * an authenticator app (QR code and key, confirmed by a first code, then the recovery codes
 * shown once), makes new recovery codes or removes the authenticator (the password again),
 * adds (a page script), renames and removes passkeys, links and unlinks sign-in providers
 * (provider-pages.ts starts a link): adding, removing, linking and unlinking ask for the password
 * again too, as the API does (`reauthenticate`, users/user-context.ts), and
 * lists the sessions with a button to end each, or all the others. Every change is one call of
 * the user service, as the API makes it; forms carry the session's CSRF token.
 */
const PATH = '/users/account';

const passwordField: FieldConf = {
  id: 'password',
  name: 'Your password',
  datatype: 'password',
  size: 256,
  required: true,
  settings: { single: true, minLength: 1, autocomplete: 'current-password' },
};

/** The password again, in the plain forms that change how the account signs in. */
const PROOF_INPUT =
  '<input type="password" name="password" aria-label="Your password" placeholder="Your password" ' +
  'maxlength="256" required autocomplete="current-password">';

function sessionsSection(sessions: readonly ListedSession[], csrf: string): string {
  const others = sessions.some((s) => !s.current)
    ? sessionsButton(PATH, csrf, 'endOthers', 'Sign out everywhere else')
    : '';
  return `<section class="card"><h2>Sessions</h2>${sessionsTable(sessions, PATH, csrf)}${others}</section>`;
}

/** The providers: each linked one with its Unlink button, each other one with a button that links it. */
async function providersSection(users: UserService, caller: RequestCaller, csrf: string): Promise<string> {
  const configured = await users.providers(caller);
  if (configured.length === 0) return '';
  const linked = await users.providerLinks(caller);
  const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
  const rows = configured.map((p) => {
    const link = linked.find((l) => l.provider === p.id);
    const id = encodeURIComponent(p.id);
    const button = link
      ? `<form method="post" action="${PATH}">${hidden}<input type="hidden" name="provider" value="${id}">` +
        `${PROOF_INPUT}<button type="submit" name="unlink$" value="1" class="btn secondary">Unlink</button></form>`
      : `<form method="post" action="/users/providers/${id}/link">${hidden}${PROOF_INPUT}` +
        `<button type="submit" class="btn secondary">Link ${escapeHtml(p.label)}</button></form>`;
    const what = link ? `linked${link.email ? ` as ${escapeHtml(link.email)}` : ''}` : 'not linked';
    return `<li><strong>${escapeHtml(p.label)}</strong>: ${what} ${button}</li>`;
  });
  return `<section class="card"><h2>Sign-in providers</h2><ul class="providers">${rows.join('')}</ul></section>`;
}

/** The sign-in methods' sections (admin/signin-methods/): the passkeys. */
async function methodSections(users: UserService, caller: RequestCaller, csrf: string): Promise<string> {
  const part = { path: PATH, csrf, proofInput: PROOF_INPUT };
  return (await Promise.all(METHOD_PAGES.map((m) => m.accountSection(users, caller, part)))).join('');
}

/** The session buttons, which are plain forms: end one session, or all the others; then back here. */
async function endSessions(users: UserService, caller: RequestCaller, body: Record<string, unknown>): Promise<string> {
  if (body.endOthers$ !== undefined) {
    await users.revokeOtherSessions(caller);
    return 'Every other session has ended.';
  }
  await users.revokeSession(caller, { session: textParam(body.session) });
  return 'The session has ended.';
}

const REQUIRED = 'Your account must sign in with a second factor.';
const OFFERED = 'Sign in with a code from your phone as well as your password.';

/** A folded form stands open when it was refused, so its problems show. */
const open = (r: { result: unknown }) => (r.result === false ? ' open' : '');

export async function accountPage(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const caller = await callerOf(request, users);
  reply.header('cache-control', 'no-store');
  if (!caller.user || caller.via !== 'cookie') return reply.redirect(`/users/signin?next=${PATH}`, 303);
  const form = await publicFormRequest(request, reply, {
    fieldBytes: deps.config.bodyLimit,
    trustedOrigins: deps.config.corsOrigins,
  });
  if (request.method === 'POST') assertCsrf(request, form.body?.csrf);
  const body = form.body ?? {};
  // The sign-in methods' own forms (admin/signin-methods/): a passkey renamed or removed.
  for (const method of request.method === 'POST' ? METHOD_PAGES : []) {
    const done = await method.accountAction(users, caller, body);
    if (done === null) continue;
    flash(request, reply, [done]);
    return reply.redirect(PATH, 303);
  }
  if (request.method === 'POST' && body.unlink$ !== undefined) {
    await users.unlinkProvider(caller, { provider: textParam(body.provider), password: textParam(body.password) });
    flash(request, reply, ['The provider is unlinked.']);
    return reply.redirect(PATH, 303);
  }
  if (request.method === 'POST' && (body.endSession$ !== undefined || body.endOthers$ !== undefined)) {
    flash(request, reply, [await endSessions(users, caller, body)]);
    return reply.redirect(PATH, 303);
  }

  const csrf = csrfTokenOf(request);
  let setup: TotpSetup | null = null;
  let recoveryCodes: string[] | null = null;
  const base = { request: form, action: PATH, csrfToken: csrf };
  const enrol = new PageForm({
    ...base,
    formid: 'enrol',
    // A form needs a field: this one only names the step.
    fields: [{ id: 'step', datatype: 'string', size: 10, hidden: true }],
    actions: [{ id: 'enrol', method: 'submit', name: 'Set up an authenticator app', cssClass: 'btn btn-primary' }],
    perform: async () => {
      setup = await users.totpEnrol(caller, {});
    },
  });
  const confirm = new PageForm({
    ...base,
    formid: 'confirm',
    fields: [
      {
        id: 'code',
        name: 'Code from the app',
        datatype: 'string',
        size: 20,
        required: true,
        settings: { autocomplete: 'one-time-code' },
      },
      passwordField,
    ],
    actions: [{ id: 'confirm', method: 'submit', name: 'Confirm', cssClass: 'btn btn-primary' }],
    perform: async (data) => {
      const values = { code: String(data.code ?? ''), password: String(data.password ?? '') };
      ({ recoveryCodes } = await users.totpConfirm(caller, values));
    },
  });
  /** A form that asks for the password again before a change of the confirmed factor. */
  const withPassword = (formid: string, name: string, perform: (password: string) => Promise<PerformOutcome>) =>
    new PageForm({
      ...base,
      formid,
      fields: [passwordField],
      actions: [{ id: formid, method: 'submit', name, cssClass: 'btn secondary' }],
      perform: (data) => perform(String(data.password ?? '')),
    });
  const newCodes = withPassword('codes', 'Make new recovery codes', async (password) => {
    ({ recoveryCodes } = await users.recoveryCodes(caller, { password }));
    return {};
  });
  const remove = withPassword('remove', 'Remove the authenticator', async (password) => {
    await users.totpRemove(caller, { password });
    return { message: 'The authenticator is removed.', redirect: PATH };
  });
  const results = {
    enrol: await enrol.process(),
    confirm: await confirm.process(),
    codes: await newCodes.process(),
    remove: await remove.process(),
  };
  for (const r of Object.values(results)) if (r.response) return sendFormResponse(request, reply, r.response);
  // A wrong first code: a new secret is shown with the form again (the scan may have been wrong).
  if (confirm.isRequestAction('confirm') && results.confirm.result === false) setup = await users.totpEnrol(caller, {});

  const state = await users.secondFactor(caller);
  let factor: string;
  if (recoveryCodes) factor = recoveryCodesHtml(recoveryCodes, PATH);
  else if (setup) factor = totpSetupHtml(setup, 'Scan this code with an authenticator app') + results.confirm.html;
  else if (state.totp)
    factor =
      `<p>An authenticator app is set up. Recovery codes left: <strong>${state.recoveryCodes}</strong>.</p>` +
      `<details${open(results.codes)}><summary>New recovery codes</summary>${results.codes.html}</details>` +
      `<details${open(results.remove)}><summary>Remove the authenticator</summary>${results.remove.html}</details>`;
  else factor = `<p>${state.required ? REQUIRED : OFFERED}</p>${results.enrol.html}`;

  const sessions = await users.sessions(caller);
  const failed = Object.values(results).some((r) => r.result === false);
  const page = {
    title: 'Your account',
    body:
      `<section class="card"><h2>Authenticator app</h2>${factor}</section>` +
      (await methodSections(users, caller, csrf)) +
      (await providersSection(users, caller, csrf)) +
      sessionsSection(sessions, csrf),
  };
  return sendHtml(reply, await renderPublicPage(request, reply, users, page), failed ? 422 : 200);
}
