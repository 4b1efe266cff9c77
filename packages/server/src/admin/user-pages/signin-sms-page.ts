import type { FieldConf } from '@roost/forms';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, startCookieSession, withClient } from '../../http/auth.js';
import type { UserService } from '../../users/index.js';
import type { PageDeps } from '../index.js';
import { PageForm } from '../page-kit/page-form.js';
import { textParam } from '../page-kit/page-parts.js';
import { sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { pendingChallenge, secondStep, type PendingChallenge } from '../pages/second-step-form.js';
import { openToAnybody, publicFormRequest, renderPublicPage } from './public-page.js';
import { proofOfWorkFields, withPageProof } from '../page-kit/proof-of-work-field.js';

/**
 * `/users/signin-sms`: sign-in by a code by SMS (users/signin-methods/sms-code/), when an
 * administrator has granted `smsSignin`, as `/users/signin-mail` (signin-mail-page.ts) is for
 * mail. "Text me a code" asks for the code for a confirmed number; the form below takes the
 * number with the code. An account with another second factor continues with the sign-in
 * page's second step. Signed in, the browser goes to `/users/account`.
 */
const PATH = '/users/signin-sms';
const DONE = '/users/account';

const phoneField: FieldConf = {
  id: 'phone',
  name: 'Your mobile number',
  datatype: 'string',
  required: true,
  size: 40,
  settings: { autocomplete: 'tel' },
};

/** Is sign-in by SMS open to anybody (its permission `smsSignin`)? */
export const smsSigninOpen = (users: UserService) => openToAnybody(users, 'smsSignin');

export async function signinSmsPage(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const form = await publicFormRequest(request, reply, {
    fieldBytes: deps.config.bodyLimit,
    trustedOrigins: deps.config.corsOrigins,
  });
  const show = async (body: string, status = 200) =>
    sendHtml(reply, await renderPublicPage(request, reply, users, { title: 'Sign in by SMS', body }), status);
  if (!(await smsSigninOpen(users))) return show('<div class="card narrow"><p>Sign-in by SMS is off.</p></div>', 404);

  const caller = withClient(await callerOf(request, users), request);
  let token: string | null = null;
  let pending: PendingChallenge | null = null;
  const ask = new PageForm({
    request: form,
    formid: 'ask',
    action: PATH,
    fields: [phoneField, ...proofOfWorkFields(deps.config)],
    actions: [{ id: 'ask', method: 'submit', name: 'Text me a code', cssClass: 'btn btn-primary' }],
    perform: async (data) => {
      await users.smsSignin(withPageProof(caller, data), { phone: String(data.phone ?? '') });
      return { message: 'If an account has this number, we sent it a code. It works once, for a short time.' };
    },
  });
  const enter = new PageForm({
    request: form,
    formid: 'code',
    action: PATH,
    fields: [
      phoneField,
      {
        id: 'code',
        name: 'Code from the text message',
        datatype: 'string',
        required: true,
        size: 20,
        settings: { autocomplete: 'one-time-code' },
      },
    ],
    actions: [{ id: 'enter', method: 'submit', name: 'Sign in', cssClass: 'btn btn-primary' }],
    perform: async (data) => {
      try {
        ({ token } = await users.smsSignin2(caller, {
          phone: String(data.phone ?? ''),
          code: String(data.code ?? ''),
        }));
      } catch (err) {
        pending = pendingChallenge(err);
        if (!pending) throw err;
      }
    },
  });

  const asked = await ask.process();
  const entered = await enter.process({ defaultData: { phone: textParam(form.body?.phone) } });
  for (const r of [asked, entered]) if (r.response) return sendFormResponse(request, reply, r.response);
  if (token) {
    await startCookieSession(request, reply, users, token, deps.config.users.tokenLifetimeSeconds);
    return reply.redirect(DONE, 303);
  }
  if (pending) {
    // The second step is the sign-in page's: its form posts there.
    const step = await secondStep({ users, request, caller, form, action: '/users/signin', pending, next: DONE });
    if (step.kind === 'form') return show(`<div class="card narrow">${step.html}</div>`);
  }
  const failed = [asked, entered].some((r) => r.result === false);
  const codeOpen = ask.isRequestAction('ask') || enter.isRequestAction('enter') ? ' open' : '';
  return show(
    `<section class="card narrow"><p>Sign in without your password: we text a code to your phone.</p>${asked.html}` +
      `</section><details class="card narrow"${codeOpen}><summary>I have a code</summary>${entered.html}</details>`,
    failed ? 422 : 200,
  );
}
