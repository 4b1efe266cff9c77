import type { FieldConf } from '@roost/forms';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, withClient } from '../../http/auth.js';
import type { UserService } from '../../users/index.js';
import type { PageDeps } from '../index.js';
import { PageForm } from '../page-kit/page-form.js';
import { textParam } from '../page-kit/page-parts.js';
import { sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { askAndEnter, codeField, codeSignin } from './code-signin.js';
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
  const signin = codeSignin({ deps, request, reply, caller, form });
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
    fields: [phoneField, codeField('Code from the text message')],
    actions: [{ id: 'enter', method: 'submit', name: 'Sign in', cssClass: 'btn btn-primary' }],
    perform: (data) =>
      signin.attempt(() =>
        users.smsSignin2(caller, { phone: String(data.phone ?? ''), code: String(data.code ?? '') }),
      ),
  });

  const asked = await ask.process();
  const entered = await enter.process({ defaultData: { phone: textParam(form.body?.phone) } });
  for (const r of [asked, entered]) if (r.response) return sendFormResponse(request, reply, r.response);
  const finished = await signin.finish(show);
  if (finished !== undefined) return finished;
  const failed = [asked, entered].some((r) => r.result === false);
  const open = ask.isRequestAction('ask') || enter.isRequestAction('enter');
  return show(
    askAndEnter('Sign in without your password: we text a code to your phone.', asked.html, entered.html, open),
    failed ? 422 : 200,
  );
}
