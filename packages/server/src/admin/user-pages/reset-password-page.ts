import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FormRequest } from '@roost/forms';
import { callerOf } from '../../http/auth.js';
import type { PageDeps } from '../index.js';
import { PageForm } from '../page-kit/page-form.js';
import { RESET_PASSWORD, tokenPage } from './token-pages.js';

/**
 * `/users/reset-password`: the new password with the mailed code; below it, for who has no code
 * yet, the request of a reset mail. That request answers the same whether or not an account
 * matches (as `resetPassword` does), so the page cannot be used to find accounts.
 */
export function resetPasswordPage(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const requestForm = async (form: FormRequest) => {
    const caller = await callerOf(request, deps.services.users);
    const ask = new PageForm({
      request: form,
      formid: 'request-form',
      fields: [{ id: 'identity', name: 'Your user name or email', datatype: 'string', required: true, size: 254, settings: { autocomplete: 'username' } }],
      actions: [{ id: 'request', method: 'submit', name: 'Mail me a code', cssClass: 'btn secondary' }],
      perform: async (data) => {
        await deps.services.users.run('resetPassword', caller, data);
        return { message: 'If an account matches, we sent a mail with a code and a link to its address. The code works once, for a limited time.' };
      },
    });
    const { html } = await ask.process();
    const open = ask.isRequestAction('request') ? ' open' : '';
    return `<details class="card narrow"${open}><summary>No code yet? Get one by mail</summary>${html}</details>`;
  };
  return tokenPage(deps, RESET_PASSWORD, request, reply, requestForm);
}
