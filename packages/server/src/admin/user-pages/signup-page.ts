import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, type FieldConf } from '@roost/forms';
import { ANONYMOUS_CALLER, SIGNUP_POLICIES, type SignupPolicy, type User } from '../../users/index.js';
import { withClient } from '../../http/auth.js';
import type { PageDeps } from '../index.js';
import { PageForm } from '../page-kit/page-form.js';
import { link, textParam } from '../page-kit/page-parts.js';
import { sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { accountWords } from './account-words.js';
import { publicFormRequest, renderPublicPage, signInLink, successPanel } from './public-page.js';
import { proofOfWorkFields, withoutProof, withPageProof } from '../page-kit/proof-of-work-field.js';

/** The sign-up policies, in the order the page offers them (SIGNUP_POLICIES), each with what it says. */
const LABELS: Record<SignupPolicy, { title: string; button: string }> = {
  signupDirect: { title: 'Create an account', button: 'Create account' },
  signupOptin: { title: 'Create an account (confirmed by mail)', button: 'Create account' },
  signupReview: { title: 'Ask for an account', button: 'Send sign-up' },
  signupSendpw: { title: 'Get an account with a mailed password', button: 'Create account' },
  signupUid: { title: 'Create an account with a generated name', button: 'Create account' },
};

/** What the person should do next, after a successful sign-up by `policy`. */
function doneMessage(
  policy: SignupPolicy,
  data: Record<string, unknown>,
  account: User | null,
): { message: string; next: string } {
  const email = String(data.email ?? '');
  switch (policy) {
    case 'signupDirect':
      return { message: 'Your account is ready. You can sign in now.', next: signInLink };
    case 'signupOptin':
      return {
        message: `Check your mail: we sent a link to ${email} to activate your account.`,
        next: '<p>The link works once. No mail? Look in the spam folder.</p>',
      };
    case 'signupReview':
      return {
        message:
          'Thank you. An administrator will review your sign-up; you will get a mail when your account is ready.',
        next: '',
      };
    case 'signupSendpw':
      return { message: `Check your mail: we sent your password to ${email}.`, next: signInLink };
    case 'signupUid': {
      const name = account?.name ?? '';
      return {
        message: `Your account is ready. Your generated name is ${name}.`,
        next:
          '<p>Keep it: you sign in with this name.</p><p>' +
          `<code class="key generated-name">${escapeHtml(name)}</code></p>${signInLink}`,
      };
    }
  }
}

/** The fields a policy asks for. */
function fieldsOf(policy: SignupPolicy, deps: PageDeps, identityPolicy: 'name' | 'email' | 'either'): FieldConf[] {
  const { nameMinLength, passwordMinLength } = deps.config.users;
  const name: FieldConf = {
    id: 'name',
    name: 'User name',
    datatype: 'string',
    required: true,
    size: 40,
    description: `At least ${nameMinLength} characters: letters, digits, ".", "_" and "-".`,
    settings: { autocomplete: 'username' },
  };
  const emailOptional = policy === 'signupUid' && identityPolicy === 'name';
  const email: FieldConf = {
    id: 'email',
    name: 'Email',
    datatype: 'email',
    required: !emailOptional,
    size: 254,
    settings: { autocomplete: 'email' },
    ...(emailOptional ? { description: 'Optional: without it, a forgotten password cannot be reset.' } : {}),
  };
  const password: FieldConf = {
    id: 'password',
    name: 'Password',
    datatype: 'password',
    required: true,
    size: 256,
    settings: { minLength: passwordMinLength },
    description: `At least ${passwordMinLength} characters.`,
  };
  const realname: FieldConf = {
    id: 'realname',
    name: 'Your name (optional)',
    datatype: 'string',
    size: 255,
    settings: { autocomplete: 'name' },
  };
  switch (policy) {
    case 'signupSendpw':
      return [name, email, realname];
    case 'signupUid':
      return [email, password, realname];
    default:
      return [name, email, password, realname];
  }
}

/** The policies open to anybody, as the user service answers `allowed` for an anonymous caller. */
async function openPolicies(deps: PageDeps): Promise<SignupPolicy[]> {
  const open = await deps.services.users.allowed(ANONYMOUS_CALLER, { permission: SIGNUP_POLICIES });
  return SIGNUP_POLICIES.filter((p) => open.get(p) === true);
}

/**
 * `/users/signup`: the form of each sign-up policy that is open to anybody (several: a choice
 * by `?policy=`), and the right words afterwards. Closed policies are neither shown nor run.
 */
export async function signupPage(deps: PageDeps, request: FastifyRequest, reply: FastifyReply) {
  const form = await publicFormRequest(request, reply, {
    fieldBytes: deps.config.bodyLimit,
    trustedOrigins: deps.config.corsOrigins,
  });
  const open = await openPolicies(deps);
  if (open.length === 0) {
    return sendHtml(
      reply,
      await renderPublicPage(request, reply, deps.services.users, {
        title: 'Sign up',
        body: '<div class="card"><p>Sign-up is closed. Ask an administrator for an account.</p></div>',
      }),
    );
  }
  const asked = textParam(form.query?.policy);
  const policy = open.find((p) => p === asked) ?? (open[0] as SignupPolicy);
  let account: User | null = null;
  const signup = new PageForm({
    request: form,
    formid: 'signup',
    // The identity policy is a runtime setting: read it for each request.
    fields: [
      ...fieldsOf(policy, deps, (await deps.services.users.runtime()).identityPolicy),
      ...proofOfWorkFields(deps.config),
    ],
    actions: [{ id: 'signup', method: 'submit', name: LABELS[policy].button }],
    describe: accountWords(deps),
    perform: async (data) => {
      const input = Object.fromEntries(Object.entries(withoutProof(data)).filter(([, v]) => v !== ''));
      account = await deps.services.users.signup(
        withPageProof(withClient(ANONYMOUS_CALLER, request), data),
        policy,
        input,
      );
    },
  });
  const { result, html, response } = await signup.process({ renderSuccess: false });
  if (response) return sendFormResponse(request, reply, response);
  if (result && signup.isRequestAction('signup')) {
    const done = doneMessage(policy, result as Record<string, unknown>, account);
    const messages = `<div class="alert alert-success" role="status"><div>${escapeHtml(done.message)}</div></div>`;
    return sendHtml(
      reply,
      await renderPublicPage(request, reply, deps.services.users, {
        title: 'Sign up',
        body: successPanel(messages, done.next),
      }),
    );
  }
  const tab = (p: SignupPolicy): string =>
    p === policy
      ? `<span aria-current="page">${escapeHtml(LABELS[p].title)}</span>`
      : link(`/users/signup?policy=${p}`, LABELS[p].title);
  const tabs = open.map((p) => `<li>${tab(p)}</li>`).join('');
  const choice = open.length > 1 ? `<nav class="tabs" aria-label="Ways to sign up"><ul>${tabs}</ul></nav>` : '';
  const body =
    `${choice}<section class="card narrow">` +
    `<h2>${escapeHtml(LABELS[policy].title)}</h2>${html}<p class="muted">Have an account? ` +
    `${link('/users/signin', 'Sign in')}.</p></section>`;
  return sendHtml(
    reply,
    await renderPublicPage(request, reply, deps.services.users, {
      title: 'Sign up',
      body,
      head: await signup.htmlHead(),
    }),
    result === false ? 422 : 200,
  );
}
