import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, HTMLForm, type ActionCallback, type FieldConf } from '@roost/forms';
import type { Config } from '../../core/config.js';
import { isRoostError } from '../../core/errors.js';
import { administers } from '../../core/grants.js';
import { METHOD_PAGES } from '../signin-methods/index.js';
import {
  assertSameOrigin,
  callerOf,
  clearAuthCookie,
  startCookieSession,
  setTrustedDeviceCookie,
  withClient,
  type RequestCaller,
} from '../../http/auth.js';
import { isLocalRedirect, type ProviderInfo, type UserService } from '../../users/index.js';
import { assertCsrf, csrfTokenOf } from '../csrf.js';
import { renderPage, type PageInit } from '../layout.js';
import { readFormRequest } from '../page-kit/page-body.js';
import { rethrowThrottled } from '../page-kit/page-errors.js';
import { link, textParam } from '../page-kit/page-parts.js';
import { sendHtml, takeFlash } from '../page-kit/page-reply.js';
import { renderPublicPage } from '../user-pages/public-page.js';
import { mailSigninOpen } from '../user-pages/signin-mail-page.js';
import { smsSigninOpen } from '../user-pages/signin-sms-page.js';
import { recoveryCodesHtml } from '../signin-methods/recovery-page.js';
import { pendingChallenge, secondStep, type PendingChallenge, type SecondStepResult } from './second-step-form.js';
import { proofOfWorkFields, withPageProof } from '../page-kit/proof-of-work-field.js';

/**
 * Sign-in and sign-out pages: `/admin/signin` (administrators only: an account outside `admins`
 * gets no session from it) and `/users/signin` for everybody, each with its sign-out. The
 * sign-in form has no session yet, so no CSRF token: it is guarded against login CSRF by the
 * Origin / Fetch-Metadata check, and throttled like the API's `signin`: by failed attempts per
 * account and address (users/signin-throttle.ts), shared with `token` and `signin`.
 */

type Audience = 'admin' | 'user';

const PLACES: Record<Audience, { signin: string; signout: string; home: string; title: string }> = {
  admin: {
    signin: '/admin/signin',
    signout: '/admin/signout',
    home: '/admin',
    title: 'Sign in to the management backend',
  },
  user: { signin: '/users/signin', signout: '/users/signout', home: '/users/signin', title: 'Sign in' },
};

const NOT_ADMIN = 'This account has no access to the management backend.';

/**
 * Where to go after signing in: a local path only (no `//host`, no scheme: an open redirect
 * would let a link send a fresh session's browser anywhere); for the admin pages, one under
 * `/admin`.
 */
export function safeNext(next: string, audience: Audience): string {
  const local = isLocalRedirect(next) && next.length <= 2000;
  if (!local) return PLACES[audience].home;
  if (audience === 'admin' && !(next === '/admin' || next.startsWith('/admin/') || next.startsWith('/admin?')))
    return PLACES.admin.home;
  if (next.startsWith('/admin/signin') || next.startsWith('/users/signin')) return PLACES[audience].home;
  return asciiLocation(next);
}

/**
 * A header value must be Latin-1 without control characters, and a path outside ASCII (`/☃`, a
 * lone surrogate) made the redirect fail with a 500 after signing the user in: every character
 * outside printable ASCII is sent percent-encoded as UTF-8 (a lone surrogate as U+FFFD), which
 * is what a browser does with such a link; `%` sequences already there stay as they are.
 */
function asciiLocation(path: string): string {
  const wellFormed = path.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  return wellFormed.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
}

function identityLabel(policy: 'name' | 'email' | 'either'): string {
  return policy === 'name' ? 'Name' : policy === 'email' ? 'Email' : 'Name or email';
}

interface SigninDeps {
  users: UserService;
  config: Config;
}

async function signinPage(deps: SigninDeps, audience: Audience, request: FastifyRequest, reply: FastifyReply) {
  const { users, config } = deps;
  const place = PLACES[audience];
  // The Origin / Fetch-Metadata check comes before the body is read (login CSRF).
  if (request.method === 'POST') assertSameOrigin(request, config.corsOrigins);
  const form = await readFormRequest(request, reply, { fieldBytes: config.bodyLimit, fileBytes: 0, uploadDir: '' });
  const caller = await callerOf(request, users);
  const isAdmin = caller.user !== null && administers(caller.principal);
  const next = textParam(form.query?.next) || textParam(form.body?.next);
  reply.header('cache-control', 'no-store');

  // Already signed in: administrators go on; a user page shows who is signed in.
  if (request.method === 'GET' && caller.user && (audience === 'user' || isAdmin)) {
    if (audience === 'admin' || next) return reply.redirect(safeNext(next, audience), 303);
    return sendHtml(reply, await shell(users, request, reply, audience, signedInPage(request, caller, place)));
  }
  // The second step (an account with a second factor): its own form, posted to this page.
  const stepInput = { users, request, caller, form, action: place.signin, next };
  if (request.method === 'POST' && form.body?.verify$ !== undefined)
    return afterSecondStep(deps, audience, request, reply, await secondStep(stepInput), next);

  let token: string | undefined;
  let pending: PendingChallenge | null = null;
  const signin: ActionCallback = async function (this: HTMLForm) {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return [false, await this.render(data, [], errors)];
    const again = { identity: data.identity, next: data.next };
    let issued: string;
    try {
      const credentials = { identity: String(data.identity ?? ''), password: String(data.password ?? '') };
      ({ token: issued } = await users.signin(withPageProof(withClient(caller, request), data), credentials));
    } catch (err) {
      pending = pendingChallenge(err);
      if (pending) return [true, ''];
      if (!isRoostError(err)) throw err;
      rethrowThrottled(err);
      return [false, await this.render(again, [err.message], undefined, false, false)];
    }
    if (!(await admitted(users, audience, issued)))
      return [false, await this.render(again, [NOT_ADMIN], undefined, false, false)];
    token = issued;
    return [true, ''];
  };

  const policy = (await users.runtime()).identityPolicy;
  const fields: FieldConf[] = [
    {
      id: 'identity',
      name: identityLabel(policy),
      datatype: 'string',
      size: 254,
      required: true,
      settings: { autocomplete: 'username' },
    },
    {
      id: 'password',
      name: 'Password',
      datatype: 'password',
      size: 256,
      required: true,
      settings: { single: true, minLength: 1, autocomplete: 'current-password' },
    },
    { id: 'next', datatype: 'string', size: 2000, hidden: true },
    ...proofOfWorkFields(config),
  ];
  const htmlForm = new HTMLForm({
    request: form,
    formid: 'signin',
    action: place.signin,
    fields,
    actions: [
      { id: 'default', method: 'startForm', hidden: true },
      { id: 'signin', method: signin, name: 'Sign in', cssClass: 'btn btn-primary' },
    ],
    widget: { item_template: 'field_onecolumn', action_template: 'form_actions_onecolumn' },
  });
  const { result, html } = await htmlForm.process({ defaultData: { next } });
  if (pending)
    return afterSecondStep(deps, audience, request, reply, await secondStep({ ...stepInput, pending }), next);
  if (token) {
    await startCookieSession(request, reply, users, token, config.users.tokenLifetimeSeconds);
    return reply.redirect(safeNext(next, audience), 303);
  }
  const notices: string[] = [];
  if (textParam(form.query?.signedout)) notices.push('You are signed out.');
  if (audience === 'admin' && caller.user && !isAdmin)
    notices.push(`You are signed in as ${caller.user.name}, who is not an administrator.`);
  const page = {
    title: place.title,
    body: `<div class="card narrow">${html}${await signinLinks(users, audience, caller, next)}</div>`,
    head: await htmlForm.htmlHead(),
    messages: notices,
  };
  return sendHtml(reply, await shell(users, request, reply, audience, page), result === false ? 422 : 200);
}

/**
 * Whether a fresh session may stay: on the admin sign-in only an administrator's. Any other is
 * revoked at once, so the admin page never leaves a session behind.
 */
async function admitted(users: UserService, audience: Audience, token: string): Promise<boolean> {
  if (audience === 'user') return true;
  const who = await users.authenticate(token);
  if (who?.user && administers(who.principal)) return true;
  if (who) await users.signout(who);
  return false;
}

/** The page after a second step's form: signed in (with the recovery codes, once), the form again, or start over. */
async function afterSecondStep(
  deps: SigninDeps,
  audience: Audience,
  request: FastifyRequest,
  reply: FastifyReply,
  step: SecondStepResult,
  next: string,
) {
  const { users, config } = deps;
  const place = PLACES[audience];
  if (step.kind === 'expired') {
    const page = {
      title: place.title,
      body:
        '<div class="card narrow"><p>The sign-in took too long or was used already.</p>' +
        `<p>${link(place.signin, 'Sign in again')}</p></div>`,
    };
    return sendHtml(reply, await shell(users, request, reply, audience, page), 422);
  }
  if (step.kind === 'form') {
    const page = { title: place.title, body: `<div class="card narrow">${step.html}</div>`, head: step.head };
    return sendHtml(reply, await shell(users, request, reply, audience, page), step.failed ? 422 : 200);
  }
  if (!(await admitted(users, audience, step.token))) {
    const page = { title: place.title, body: `<div class="card narrow"><p>${NOT_ADMIN}</p></div>` };
    return sendHtml(reply, await shell(users, request, reply, audience, page), 403);
  }
  await startCookieSession(request, reply, users, step.token, config.users.tokenLifetimeSeconds);
  if (step.deviceToken) setTrustedDeviceCookie(request, reply, step.deviceToken, config.users.trustedDeviceDays);
  if (!step.recoveryCodes) return reply.redirect(safeNext(next, audience), 303);
  const page = {
    title: 'Your recovery codes',
    body: `<div class="card narrow">${recoveryCodesHtml(step.recoveryCodes, safeNext(next, audience))}</div>`,
  };
  return sendHtml(reply, await shell(users, request, reply, audience, page));
}

/** The page shell: the public pages' (with their links) for users, a bare one for the backend; both show flashes. */
async function shell(
  users: UserService,
  request: FastifyRequest,
  reply: FastifyReply,
  audience: Audience,
  page: Omit<PageInit, 'nav' | 'user'>,
): Promise<string> {
  return audience === 'user'
    ? await renderPublicPage(request, reply, users, { ...page, home: PLACES.user.home })
    : renderPage({
        ...page,
        home: PLACES.admin.home,
        messages: [...takeFlash(request, reply), ...(page.messages ?? [])],
      });
}

/** The providers' buttons: each starts a sign-in (user-pages/provider-pages.ts) that comes back to `next`. */
function providerButtons(providers: readonly ProviderInfo[], next: string): string {
  if (providers.length === 0) return '';
  const to = next ? `?redirect=${encodeURIComponent(next)}` : '';
  const buttons = providers.map(
    (p) =>
      `<a class="btn secondary provider" href="/users/providers/${encodeURIComponent(p.id)}/start${escapeHtml(to)}">` +
      `Sign in with ${escapeHtml(p.label)}</a>`,
  );
  return `<div class="providers">${buttons.join(' ')}</div>`;
}

async function signinLinks(
  users: UserService,
  audience: Audience,
  caller: RequestCaller,
  next: string,
): Promise<string> {
  if (audience === 'admin') return '';
  // The providers (users/provider-ops.ts); none when their list is closed to this caller.
  const providers = await users.providers(caller).catch((err: unknown) => {
    if (isRoostError(err)) return [];
    throw err;
  });
  // The pages of the `pages` part of issue 3; a configured reset page url replaces Roost's own.
  const byMail = (await mailSigninOpen(users)) ? '<a href="/users/signin-mail">Sign in with a code by mail</a> · ' : '';
  const bySms = (await smsSigninOpen(users)) ? '<a href="/users/signin-sms">Sign in with a code by SMS</a> · ' : '';
  // The sign-in methods' buttons (admin/signin-methods/): a passkey.
  const then = next ? safeNext(next, audience) : PLACES.user.home;
  return (
    METHOD_PAGES.map((m) => m.signinPart?.(then) ?? '').join('') +
    providerButtons(providers, next ? safeNext(next, audience) : '') +
    `<p class="muted">${byMail}${bySms}<a href="/users/reset-password">Forgot your password?</a> · ` +
    '<a href="/users/signup">Create an account</a></p>'
  );
}

function signedInPage(
  request: FastifyRequest,
  caller: RequestCaller,
  place: (typeof PLACES)[Audience],
): Omit<PageInit, 'nav' | 'user'> {
  const name = caller.user?.name ?? '';
  const body =
    `<div class="card narrow"><p>You are signed in as <strong>${escapeHtml(name)}</strong>.</p>` +
    `<p>${link('/users/account', 'Your sign-in methods and sessions')}</p>` +
    `<form method="post" action="${place.signout}">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(csrfTokenOf(request))}">` +
    `<button type="submit" class="btn btn-primary">Sign out</button></form></div>`;
  return { title: 'Signed in', body };
}

async function signoutRoute(deps: SigninDeps, audience: Audience, request: FastifyRequest, reply: FastifyReply) {
  const caller = await callerOf(request, deps.users);
  if (caller.user) {
    assertSameOrigin(request, []);
    const form = await readFormRequest(request, reply, {
      fieldBytes: deps.config.bodyLimit,
      fileBytes: 0,
      uploadDir: '',
    });
    assertCsrf(request, textParam(form.body?.csrf));
    await deps.users.signout(caller);
  }
  clearAuthCookie(request, reply);
  reply.header('cache-control', 'no-store');
  return reply.redirect(`${PLACES[audience].signin}?signedout=1`, 303);
}

export function registerSigninPages(app: FastifyInstance, deps: SigninDeps): void {
  for (const audience of ['admin', 'user'] as const) {
    const place = PLACES[audience];
    app.get(place.signin, (request, reply) => signinPage(deps, audience, request, reply));
    app.post(place.signin, (request, reply) => signinPage(deps, audience, request, reply));
    app.post(place.signout, (request, reply) => signoutRoute(deps, audience, request, reply));
    app.get(place.signout, (_request, reply) => reply.redirect(place.signin, 303));
  }
}
