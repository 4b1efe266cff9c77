import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, withClient } from '../../http/auth.js';
import type { PageDeps } from '../index.js';
import { PageForm } from '../page-kit/page-form.js';
import { textParam } from '../page-kit/page-parts.js';
import { identityField } from './public-page.js';
import { RESET_PASSWORD, tokenPage, type ComposeTokenPage } from './token-pages.js';
import { proofOfWorkFields, withPageProof } from '../page-kit/proof-of-work-field.js';

/**
 * `/users/reset-password`: who comes without a code is first offered the reset mail ("Mail me
 * a code"), with the form for a code already received folded below; who comes by the mail's
 * link (`?token=`), or posts a code, sees the new-password form first. The request answers the
 * same whether or not an account matches (as `resetPassword` does), so the page cannot be used
 * to find accounts.
 */
export function resetPasswordPage(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const compose: ComposeTokenPage = async (form, tokenSection, tokenPosted) => {
    const caller = withClient(await callerOf(request, deps.services.users), request);
    const ask = new PageForm({
      request: form,
      formid: 'request-form',
      fields: [identityField, ...proofOfWorkFields(deps.config)],
      actions: [{ id: 'request', method: 'submit', name: 'Mail me a code', cssClass: 'btn btn-primary' }],
      perform: async (data) => {
        await deps.services.users.resetPassword(withPageProof(caller, data), {
          identity: typeof data.identity === 'string' ? data.identity : '',
        });
        return {
          message:
            'If an account matches, we sent a mail with a code and a link to its address. The code works once, for ' +
            'a limited time.',
        };
      },
    });
    const { html } = await ask.process();
    const requested = ask.isRequestAction('request');
    if (tokenPosted || textParam(form.query?.token)) {
      return {
        title: RESET_PASSWORD.title,
        body:
          `<section class="card narrow">${tokenSection}</section><details class="card narrow">` +
          `<summary>No code yet? Get one by mail</summary>${html}</details>`,
      };
    }
    const intro =
      '<p>Forgot your password? Enter your user name or email and we mail you a code to choose a new one.</p>';
    // Once a code was asked for, the form to enter it stands open.
    const codeForm =
      `<details class="card narrow"${requested ? ' open' : ''}>` +
      `<summary>I have a code already</summary>${tokenSection}</details>`;
    return { title: 'Reset your password', body: `<section class="card narrow">${intro}${html}</section>${codeForm}` };
  };
  return tokenPage(deps, RESET_PASSWORD, request, reply, compose);
}
