import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, startCookieSession, withClient } from '../../http/auth.js';
import type { UserService } from '../../users/index.js';
import type { PageDeps } from '../index.js';
import { PageForm } from '../page-kit/page-form.js';
import { textParam } from '../page-kit/page-parts.js';
import { sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { pendingChallenge, secondStep, type PendingChallenge } from '../pages/second-step-form.js';
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
const DONE = '/users/account';

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
  let token: string | null = null;
  let pending: PendingChallenge | null = null;
  /** Signs in with the proof; a second factor to come is kept for its form. */
  const signIn = async (proof: { token: string } | { identity: string; code: string }) => {
    try {
      ({ token } = await users.signinMail2(caller, proof));
    } catch (err) {
      pending = pendingChallenge(err);
      if (!pending) throw err;
    }
  };
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
    fields: [
      identityField,
      {
        id: 'code',
        name: 'Code from the mail',
        datatype: 'string',
        required: true,
        size: 20,
        settings: { autocomplete: 'one-time-code' },
      },
    ],
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
  if (token) {
    await startCookieSession(request, reply, users, token, deps.config.users.tokenLifetimeSeconds);
    return reply.redirect(DONE, 303);
  }
  if (pending) {
    // The second step is the sign-in page's: its form posts there.
    const step = await secondStep({ users, request, caller, form, action: '/users/signin', pending, next: DONE });
    if (step.kind === 'form') return show(`<div class="card narrow">${step.html}</div>`);
  }
  const failed = [asked, entered, linked].some((r) => r.result === false);
  if (linkToken)
    return show(
      `<div class="card narrow"><p>Sign in with the link from your mail.</p>${linked.html}</div>`,
      failed ? 422 : 200,
    );
  const codeOpen = ask.isRequestAction('ask') || enter.isRequestAction('enter') ? ' open' : '';
  return show(
    `<section class="card narrow"><p>Sign in without your password: we mail you a code and a link.</p>${asked.html}` +
      `</section><details class="card narrow"${codeOpen}><summary>I have a code</summary>${entered.html}</details>`,
    failed ? 422 : 200,
  );
}
