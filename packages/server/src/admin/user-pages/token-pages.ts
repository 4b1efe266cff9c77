import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, type FieldConf, type FormRequest } from '@roost/forms';
import { callerOf } from '../../http/auth.js';
import type { Caller, UserService } from '../../users/index.js';
import type { PageDeps } from '../index.js';
import { PageForm } from '../page-kit/page-form.js';
import { textParam } from '../page-kit/page-parts.js';
import { sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { accountWords } from './account-words.js';
import { publicFormRequest, renderPublicPage, signInLink, successPanel } from './public-page.js';

/** One page a mail links to: a token (from the link, or typed in), perhaps more fields, one operation. */
export interface TokenPage {
  title: string;
  intro: string;
  /** The user operation that takes the token (and the other fields). */
  run(users: UserService, caller: Caller, data: Record<string, unknown>): Promise<void>;
  button: string;
  done: string;
  /** Fields after the token. */
  fields?: (deps: PageDeps) => FieldConf[];
  /** Trusted HTML after the form (another form, links). */
  after?: string;
}

/**
 * The page around the token form (`tokenSection`: its intro and form, trusted HTML): its title
 * and body, with any other forms. `tokenPosted` says whether this request posted the token form.
 * By default the token form alone, in a card.
 */
export type ComposeTokenPage = (
  form: FormRequest,
  tokenSection: string,
  tokenPosted: boolean,
) => Promise<{ title: string; body: string }>;

const tokenField: FieldConf = {
  id: 'token',
  name: 'Code from the mail',
  datatype: 'string',
  required: true,
  settings: { autocomplete: 'off' },
  description: 'Filled in when you came by the link in the mail.',
};

/**
 * The token pages work in two steps on purpose: the link only shows the form (mail scanners
 * that open links must not use the single-use token), the button posts it. A wrong, used or
 * expired token is said at the field and changes nothing.
 */
export async function tokenPage(
  deps: PageDeps,
  spec: TokenPage,
  request: FastifyRequest,
  reply: FastifyReply,
  compose: ComposeTokenPage = async (_form, tokenSection) => ({
    title: spec.title,
    body: `<section class="card narrow">${tokenSection}</section>`,
  }),
) {
  const form = await publicFormRequest(request, reply, {
    fieldBytes: deps.config.bodyLimit,
    trustedOrigins: deps.config.corsOrigins,
  });
  const caller = await callerOf(request, deps.services.users);
  const page = new PageForm({
    request: form,
    formid: 'token-form',
    fields: [tokenField, ...(spec.fields?.(deps) ?? [])],
    actions: [{ id: 'confirm', method: 'submit', name: spec.button }],
    describe: accountWords(deps),
    perform: async (data) => {
      await spec.run(deps.services.users, caller, data);
    },
  });
  const { result, html, response } = await page.process({
    renderSuccess: false,
    defaultData: { token: textParam(form.query?.token) },
  });
  if (response) return sendFormResponse(request, reply, response);
  if (result && page.isRequestAction('confirm')) {
    const messages = `<div class="alert alert-success" role="status"><div>${escapeHtml(spec.done)}</div></div>`;
    return sendHtml(
      reply,
      await renderPublicPage(request, reply, deps.services.users, {
        title: spec.title,
        body: successPanel(messages, signInLink),
      }),
    );
  }
  const composed = await compose(form, `<p>${escapeHtml(spec.intro)}</p>${html}`, page.isRequestAction('confirm'));
  const body = composed.body + (spec.after ?? '');
  return sendHtml(
    reply,
    await renderPublicPage(request, reply, deps.services.users, {
      title: composed.title,
      body,
      head: await page.htmlHead(),
    }),
    result === false ? 422 : 200,
  );
}

/** A form's text field (a field left out is empty, which the operation refuses as required). */
const text = (value: unknown) => (typeof value === 'string' ? value : '');

export const ACTIVATE: TokenPage = {
  title: 'Activate your account',
  intro: 'Confirm your address to activate your account.',
  run: (users, caller, data) => users.activate(caller, { token: text(data.token) }),
  button: 'Activate my account',
  done: 'Your account is active. You can sign in now.',
};

export const VERIFY_EMAIL: TokenPage = {
  title: 'Confirm your new email address',
  intro: 'Confirm that the address this mail came to is your new one.',
  run: (users, caller, data) => users.verifyEmail2(caller, { token: text(data.token) }),
  button: 'Confirm my address',
  done: 'Your new email address is confirmed and in use.',
};

export const RESET_PASSWORD: TokenPage = {
  title: 'Choose a new password',
  intro: 'Enter the code from the mail and your new password (twice).',
  run: (users, caller, data) =>
    users.resetPassword2(caller, { token: text(data.token), newpassword: text(data.newpassword) }),
  button: 'Set new password',
  done: 'Your password has been changed. Sign in with the new one; other devices were signed out.',
  fields: (deps) => [
    {
      id: 'newpassword',
      name: 'New password',
      datatype: 'password',
      required: true,
      size: 256,
      settings: { minLength: deps.config.users.passwordMinLength, autocomplete: 'new-password' },
      description: `At least ${deps.config.users.passwordMinLength} characters.`,
    },
  ],
};
