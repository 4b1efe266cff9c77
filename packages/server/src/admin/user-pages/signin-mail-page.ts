import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, withClient } from '../../http/auth.js';
import type { UserService } from '../../users/index.js';
import type { PageDeps } from '../index.js';
import { PageForm } from '../page-kit/page-form.js';
import { textParam } from '../page-kit/page-parts.js';
import { sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { askAndEnter, codeField, codeSignin } from './code-signin.js';
import { identityField, openToAnybody, publicFormRequest, renderPublicPage } from './public-page.js';
import { proofOfWorkFields, withPageProof } from '../page-kit/proof-of-work-field.js';

/**
 * `/users/signin-mail`: sign-in by mail (users/signin-methods/mail-code/), when an administrator has
 * turned it on. "Mail me a sign-in code" asks for the code and link; the code form below takes
 * the code with the name or email; the mail's link (`?token=`) shows a button that signs in (a
 * GET never does: mail scanners open links). An account with a second factor continues with
 * the sign-in page's second step. Signed in, the browser goes to `/users/account`.
 */
const PATH = '/users/signin-mail';

/** Is sign-in by mail open to anybody (its permission `signinMail`)? */
export const mailSigninOpen = (users: UserService) => openToAnybody(users, 'signinMail');

export async function signinMailPage(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const users = deps.services.users;
  const form = await publicFormRequest(request, reply, {
    fieldBytes: deps.config.bodyLimit,
    trustedOrigins: deps.config.corsOrigins,
  });
  const show = async (body: string, status = 200) =>
    sendHtml(reply, await renderPublicPage(request, reply, users, { title: 'Sign in by mail', body }), status);
  if (!(await mailSigninOpen(users))) return show('<div class="card narrow"><p>Sign-in by mail is off.</p></div>', 404);

  const caller = withClient(await callerOf(request, users), request);
  const linkToken = textParam(form.query?.token) || textParam(form.body?.token);
  const signin = codeSignin({ deps, request, reply, caller, form });
  const signIn = (proof: { token: string } | { identity: string; code: string }) =>
    signin.attempt(() => users.signinMail2(caller, proof));

  const ask = new PageForm({
    request: form,
    formid: 'ask',
    action: PATH,
    fields: [identityField, ...proofOfWorkFields(deps.config)],
    actions: [{ id: 'ask', method: 'submit', name: 'Mail me a sign-in code', cssClass: 'btn btn-primary' }],
    perform: async (data) => {
      await users.signinMail(withPageProof(caller, data), { identity: String(data.identity ?? '') });
      return {
        message: 'If an account matches, we sent a mail with a code and a link. They work once, for a short time.',
      };
    },
  });
  const enter = new PageForm({
    request: form,
    formid: 'code',
    action: PATH,
    fields: [identityField, codeField('Code from the mail')],
    actions: [{ id: 'enter', method: 'submit', name: 'Sign in', cssClass: 'btn btn-primary' }],
    perform: (data) => signIn({ identity: String(data.identity ?? ''), code: String(data.code ?? '') }),
  });
  const byLink = new PageForm({
    request: form,
    formid: 'link',
    action: PATH,
    fields: [{ id: 'token', datatype: 'string', size: 200, hidden: true, required: true }],
    actions: [{ id: 'link', method: 'submit', name: 'Sign in', cssClass: 'btn btn-primary' }],
    perform: (data) => signIn({ token: String(data.token ?? '') }),
  });

  const asked = await ask.process();
  const entered = await enter.process({ defaultData: { identity: textParam(form.body?.identity) } });
  const linked = await byLink.process({ defaultData: { token: linkToken } });
  for (const r of [asked, entered, linked]) if (r.response) return sendFormResponse(request, reply, r.response);
  const finished = await signin.finish(show);
  if (finished !== undefined) return finished;
  const failed = [asked, entered, linked].some((r) => r.result === false);
  if (linkToken)
    return show(
      `<div class="card narrow"><p>Sign in with the link from your mail.</p>${linked.html}</div>`,
      failed ? 422 : 200,
    );
  const open = ask.isRequestAction('ask') || enter.isRequestAction('enter');
  return show(
    askAndEnter('Sign in without your password: we mail you a code and a link.', asked.html, entered.html, open),
    failed ? 422 : 200,
  );
}
