import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldConf } from '@roost/forms';
import { commonErrors } from '../../core/errors.js';
import { ADMINS } from '../../core/permissions.js';
import { startCookieSession, withClient } from '../../http/auth.js';
import { ANONYMOUS_CALLER, DuplicateUserError, programCaller } from '../../users/index.js';
import type { PageDeps } from '../index.js';
import { renderPage } from '../layout.js';
import { PageForm } from '../page-kit/page-form.js';
import { textParam } from '../page-kit/page-parts.js';
import { flash, sendFormResponse, sendHtml } from '../page-kit/page-reply.js';
import { pendingChallenge } from './second-step-form.js';
import { SETUP_LINK_MINUTES, type SetupLinks } from '../setup-links.js';
import { accountWords } from '../user-pages/account-words.js';
import { publicFormRequest } from '../user-pages/public-page.js';
import { invalidField } from '../../core/validation.js';
import { proofOfWorkFields, withPageProof } from '../page-kit/proof-of-work-field.js';

/** Who makes the first administrator: the setup link's holder, acting as a program (users/user-context.ts). */
const SETUP_CALLER = programCaller('roost-setup');

/**
 * `/admin/setup?token=…`: the first administrator, made in the browser with the link that
 * `roost serve` prints while none exists (admin/setup-links.ts). It asks for a name, an email
 * and a password (the sign-up rules), makes an active account in `admins`, signs it in and goes
 * to the dashboard. The link works once; once any administrator exists the page only points to
 * the sign-in. The token in the form is the proof: without it nothing is made.
 */

const HOME = '/admin/setup';

function page(title: string, body: string, head = ''): string {
  return renderPage({ title, body: `<div class="card narrow">${body}</div>`, head, home: '/admin' });
}

const NOT_VALID =
  `<p>This setup link is not valid: it was used, it expired (links last ${SETUP_LINK_MINUTES} minutes) or Roost ` +
  'restarted.</p>' +
  '<p>While no administrator exists, <code>roost serve</code> prints a new link each time it starts. From a shell ' +
  'you can also run<br>' +
  "<code>npx roost user add --name admin --email you@example.com --password '&lt;a long secret&gt;' --group " +
  'admins</code></p>';

export function registerSetupPage(app: FastifyInstance, deps: PageDeps & { setupLinks: SetupLinks }): void {
  const handler = (request: FastifyRequest, reply: FastifyReply) => setupPage(deps, request, reply);
  app.get(HOME, handler);
  app.post(HOME, handler);
}

async function setupPage(deps: PageDeps & { setupLinks: SetupLinks }, request: FastifyRequest, reply: FastifyReply) {
  const { users } = deps.services;
  const form = await publicFormRequest(request, reply, {
    fieldBytes: deps.config.bodyLimit,
    trustedOrigins: deps.config.corsOrigins,
  });
  reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
  if (await users.hasAdministrator()) {
    return sendHtml(
      reply,
      page(
        'Set up Roost',
        '<p>An administrator exists already: this link is no longer needed.</p><p>' +
          '<a class="btn btn-primary" href="/admin/signin">Sign in</a></p>',
      ),
      410,
    );
  }
  const token = textParam(form.query?.token) || textParam(form.body?.token);
  if (!deps.setupLinks.valid(token)) return sendHtml(reply, page('Set up Roost', NOT_VALID), 403);

  const { nameMinLength, passwordMinLength } = deps.config.users;
  const fields: FieldConf[] = [
    {
      id: 'name',
      name: 'Administrator name',
      datatype: 'string',
      required: true,
      size: 40,
      description: `At least ${nameMinLength} characters: letters, digits, ".", "_" and "-".`,
      settings: { autocomplete: 'username' },
    },
    {
      id: 'email',
      name: 'Email',
      datatype: 'email',
      required: true,
      size: 254,
      description: 'For password resets and mails to the administrators.',
      settings: { autocomplete: 'email' },
    },
    {
      id: 'password',
      name: 'Password',
      datatype: 'password',
      required: true,
      size: 256,
      settings: { minLength: passwordMinLength, autocomplete: 'new-password' },
      description: `At least ${passwordMinLength} characters.`,
    },
    { id: 'token', datatype: 'string', size: 200, hidden: true },
  ];
  let made: { name: string; password: string; altcha: unknown } | null = null;
  const setup = new PageForm({
    request: form,
    formid: 'setup',
    action: HOME,
    fields: [...fields, ...proofOfWorkFields(deps.config)],
    actions: [{ id: 'create', method: 'submit', name: 'Create the administrator', cssClass: 'btn btn-primary' }],
    describe: accountWords(deps),
    perform: async (data) => {
      const account = {
        name: String(data.name ?? ''),
        email: String(data.email ?? ''),
        password: String(data.password ?? ''),
      };
      const problems = users.checkNewAccount(account);
      if (problems.length) throw commonErrors.validation_failure({ fields: problems });
      // Used up before anything is awaited: of two posts at once, one makes the administrator.
      if (!deps.setupLinks.consume(token))
        throw commonErrors.not_allowed({ message: 'This setup link was used a moment ago.' });
      try {
        // The used-up setup link is the authority here (no administrator exists to be the caller).
        await users.createUser(SETUP_CALLER, {
          ...account,
          realname: '',
          data: '',
          notify: false,
          groups: [ADMINS],
          state: 'active',
          pending: null,
        });
      } catch (err) {
        deps.setupLinks.restore(token);
        if (err instanceof DuplicateUserError) throw invalidField(err.field, 'exists');
        throw err;
      }
      made = { name: account.name, password: account.password, altcha: data.altcha };
    },
  });
  const { result, html, response } = await setup.process({ renderSuccess: false, defaultData: { token } });
  if (response) return sendFormResponse(request, reply, response);
  if (result && made) {
    const { name, password } = made;
    try {
      const signedIn = await users.signin(withPageProof(withClient(ANONYMOUS_CALLER, request), made), {
        identity: name,
        password,
      });
      await startCookieSession(request, reply, users, signedIn.token, deps.config.users.tokenLifetimeSeconds);
      return reply.redirect('/admin', 303);
    } catch (err) {
      // Administrators must have a second factor (`users.secondFactorGroups`): it is set up at the
      // sign-in page, which asks for the password again and then shows the QR code.
      if (!pendingChallenge(err)) throw err;
      flash(request, reply, ['The administrator is made. Sign in to set up its second factor.']);
      return reply.redirect('/admin/signin', 303);
    }
  }
  const intro =
    '<h2>Welcome to Roost</h2><p>No administrator exists yet. Make the first one: it manages users, ' +
    'permissions, settings and the stores here, at <code>/admin</code>.</p>';
  return sendHtml(
    reply,
    page(
      'Set up Roost',
      `${intro}${html}<p class="muted">This link works once, for ${SETUP_LINK_MINUTES} minutes after the start.</p>`,
      await setup.htmlHead(),
    ),
    result === false ? 422 : 200,
  );
}
