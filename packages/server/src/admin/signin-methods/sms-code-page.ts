import { escapeHtml, type FieldConf } from '@roost/forms';
import type { SmsPhone } from '../../users/index.js';
import { PageForm } from '../page-kit/page-form.js';
import type { AccountSection, MethodPage } from './method-page.js';
import { recoveryCodesHtml } from './recovery-page.js';
import { passwordField } from './totp-page.js';

/**
 * The pages' part of codes by SMS (users/signin-methods/sms-code/): its section of the account
 * page adds a number (with the password again), confirms it with the code sent to it (then the
 * recovery codes, shown once) and removes it (the password again); in the sign-in's second step
 * it sends the code to the account's phone when the form first shows, and takes the typed six
 * digits, unless the account has an authenticator app, whose code the page asks for instead.
 */

const codeField: FieldConf = {
  id: 'code',
  name: 'Code from the text message',
  datatype: 'string',
  size: 20,
  required: true,
  settings: { autocomplete: 'one-time-code' },
};

/** The refusals of a number (users/signin-methods/sms-code/phone-numbers.ts), in words. */
const NUMBER_REASONS: Readonly<Record<string, string>> = {
  invalid: 'Not a phone number: check the country code and the digits.',
  not_mobile: 'Not a mobile number: texts go to mobiles only.',
  country: 'Numbers of this country cannot be used here.',
};

/** What the section says of the account's phone. */
function phoneHtml(phone: SmsPhone): string {
  if (phone.phone) return `<p>Codes are sent to <strong class="phone">${escapeHtml(phone.phone)}</strong>.</p>`;
  return '<p>Add a mobile number to sign in with a code sent by text message.</p>';
}

export const smsCodePage: MethodPage = {
  async accountSection(users, caller, { path, csrf, form }): Promise<AccountSection> {
    const base = { request: form, action: path, csrfToken: csrf };
    let recoveryCodes: string[] | null = null;
    const add = new PageForm({
      ...base,
      formid: 'smsAdd',
      fields: [
        {
          id: 'phone',
          name: 'Mobile number',
          datatype: 'string',
          size: 40,
          required: true,
          settings: { autocomplete: 'tel' },
        },
        passwordField,
      ],
      actions: [{ id: 'smsAdd', method: 'submit', name: 'Send a code', cssClass: 'btn btn-primary' }],
      describe: (field, reason) => (field === 'phone' ? NUMBER_REASONS[reason] : undefined),
      perform: async (data) => {
        const sent = await users.smsAdd(caller, {
          phone: String(data.phone ?? ''),
          password: String(data.password ?? ''),
        });
        return { message: `A code was sent to ${sent.phone}.`, redirect: path };
      },
    });
    const confirm = new PageForm({
      ...base,
      formid: 'smsConfirm',
      fields: [codeField],
      actions: [{ id: 'smsConfirm', method: 'submit', name: 'Confirm the number', cssClass: 'btn btn-primary' }],
      perform: async (data) => {
        ({ recoveryCodes } = await users.smsConfirm(caller, { code: String(data.code ?? '') }));
        return {};
      },
    });
    const remove = new PageForm({
      ...base,
      formid: 'smsRemove',
      fields: [passwordField],
      actions: [{ id: 'smsRemove', method: 'submit', name: 'Remove the number', cssClass: 'btn secondary' }],
      perform: async (data) => {
        await users.smsRemove(caller, { password: String(data.password ?? '') });
        return { message: 'The phone number is removed.', redirect: path };
      },
    });
    const results = { add: await add.process(), confirm: await confirm.process(), remove: await remove.process() };
    const response = Object.values(results).find((r) => r.response)?.response;
    if (response) return { html: '', response };
    const phone = await users.smsPhone(caller, {});
    let body: string;
    if (recoveryCodes) body = recoveryCodesHtml(recoveryCodes, path);
    else {
      body = phoneHtml(phone);
      if (phone.pending)
        body += `<p>Enter the code sent to <strong>${escapeHtml(phone.pending)}</strong>.</p>${results.confirm.html}`;
      const open = results.remove.result === false ? ' open' : '';
      body += phone.phone
        ? `<details${open}><summary>Remove the number</summary>${results.remove.html}</details>`
        : results.add.html;
    }
    return {
      html: `<section class="card" id="sms"><h2>Codes by SMS</h2>${body}</section>`,
      failed: Object.values(results).some((r) => r.result === false),
    };
  },

  secondStep: {
    method: 'sms-code',
    unless: 'totp',
    fieldName: 'Code from the text message',
    prompt: 'the code we sent to your phone',
    proof(typed) {
      const smsCode = typed.replace(/\s/g, '');
      return /^\d{6}$/.test(smsCode) ? { smsCode } : null;
    },
    async prepare(users, caller, challenge) {
      await users.smsChallenge(caller, { challenge });
      return '<p class="notice">We sent a code to your phone by text message.</p>';
    },
  },
};
