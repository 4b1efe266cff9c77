import { escapeHtml, type FieldConf } from '@roost/forms';
import type { TotpSetup } from '../../users/index.js';
import { PageForm, type PerformOutcome } from '../page-kit/page-form.js';
import type { AccountSection, MethodPage } from './method-page.js';
import { recoveryCodesHtml } from './recovery-page.js';

/**
 * The pages' part of the authenticator app (users/signin-methods/totp/): its section of the
 * account page sets one up (QR code and key, confirmed by a first code and the password, then the
 * recovery codes shown once), makes new recovery codes or removes it (the password again); in
 * the sign-in's second step it takes a typed code of six digits, and shows a new secret to an
 * account that must set one up. Its forms share what one post made (the secret being set up, the
 * new codes), so the section processes them all on each showing, as page-kit/page-form.ts does.
 */

/** The password again, before a change of how the account signs in (the SMS section's forms ask it too). */
export const passwordField: FieldConf = {
  id: 'password',
  name: 'Your password',
  datatype: 'password',
  size: 256,
  required: true,
  settings: { single: true, minLength: 1, autocomplete: 'current-password' },
};

const REQUIRED = 'Your account must sign in with a second factor.';
const OFFERED = 'Sign in with a code from your phone as well as your password.';

/** A folded form stands open when it was refused, so its problems show. */
const open = (r: { result: unknown }) => (r.result === false ? ' open' : '');

/** A key in groups of four, as apps show and people type it. */
const spaced = (key: string) => key.replace(/(.{4})/g, '$1 ').trim();

/** A new secret as the pages show it: the QR code, and the key to type by hand. */
function totpSetupHtml(setup: TotpSetup, intro: string): string {
  return (
    `<div class="enrol"><p>${escapeHtml(intro)}, then enter the six digits it shows.</p>` +
    `<div class="qr">${setup.qrSvg}</div>` +
    `<p class="muted">Or type this key into the app: <code>${escapeHtml(spaced(setup.secret))}</code></p></div>`
  );
}

export const totpPage: MethodPage = {
  async accountSection(users, caller, { path, csrf, form }): Promise<AccountSection> {
    let setup: TotpSetup | null = null;
    let recoveryCodes: string[] | null = null;
    const base = { request: form, action: path, csrfToken: csrf };
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
      return { message: 'The authenticator is removed.', redirect: path };
    });
    const results = {
      enrol: await enrol.process(),
      confirm: await confirm.process(),
      codes: await newCodes.process(),
      remove: await remove.process(),
    };
    const response = Object.values(results).find((r) => r.response)?.response;
    if (response) return { html: '', response };
    // A wrong first code: a new secret is shown with the form again (the scan may have been wrong).
    if (confirm.isRequestAction('confirm') && results.confirm.result === false) {
      setup = await users.totpEnrol(caller, {});
    }

    const state = await users.secondFactor(caller);
    let factor: string;
    if (recoveryCodes) factor = recoveryCodesHtml(recoveryCodes, path);
    else if (setup) factor = totpSetupHtml(setup, 'Scan this code with an authenticator app') + results.confirm.html;
    else if (state.totp)
      factor =
        `<p>An authenticator app is set up. Recovery codes left: <strong>${state.recoveryCodes}</strong>.</p>` +
        `<details${open(results.codes)}><summary>New recovery codes</summary>${results.codes.html}</details>` +
        `<details${open(results.remove)}><summary>Remove the authenticator</summary>${results.remove.html}</details>`;
    else factor = `<p>${state.required ? REQUIRED : OFFERED}</p>${results.enrol.html}`;
    return {
      html: `<section class="card"><h2>Authenticator app</h2>${factor}</section>`,
      failed: Object.values(results).some((r) => r.result === false),
    };
  },

  secondStep: {
    method: 'totp',
    fieldName: 'Code from the app',
    prompt: 'the code your authenticator app shows',
    proof(typed) {
      const code = typed.replace(/\s/g, '');
      return /^\d{6}$/.test(code) ? { code } : null;
    },
    // A new secret with each showing (a wrong first code may mean a wrong scan).
    async enrolment(users, caller, challenge) {
      const setup = await users.totpEnrol(caller, { challenge });
      return totpSetupHtml(setup, 'Your account needs a second factor. Scan this code with an authenticator app');
    },
  },
};
