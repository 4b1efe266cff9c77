import type { FieldConf, FormRequest } from '@roost/forms';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RequestCaller, startCookieSession } from '../../http/auth.js';
import type { PageDeps } from '../index.js';
import { pendingChallenge, secondStep, type PendingChallenge } from '../pages/second-step-form.js';

/** Where a browser signed in by a code goes. */
const DONE = '/users/account';

interface CodeSigninPage {
  deps: PageDeps;
  request: FastifyRequest;
  reply: FastifyReply;
  caller: RequestCaller;
  form: FormRequest;
}

/**
 * What the pages that sign in with a code sent to an address share (signin-mail-page.ts,
 * signin-sms-page.ts): the attempt, which gives a session's token or leaves a second factor to
 * answer, and the end of the request once their forms ran.
 */
export function codeSignin({ deps, request, reply, caller, form }: CodeSigninPage) {
  let token: string | null = null;
  let pending: PendingChallenge | null = null;
  return {
    /** Signs in with the proof; a second factor still to come is kept for its form. */
    async attempt(signIn: () => Promise<{ token: string }>): Promise<void> {
      try {
        ({ token } = await signIn());
      } catch (err) {
        pending = pendingChallenge(err);
        if (!pending) throw err;
      }
    },
    /**
     * Signed in: the cookie session and the account page. A second factor to come: the sign-in
     * page's second step (its form posts there), shown by `show`. Otherwise undefined: the page
     * shows its forms again.
     */
    async finish(show: (body: string) => Promise<unknown>): Promise<unknown> {
      const users = deps.services.users;
      if (token) {
        await startCookieSession(request, reply, users, token, deps.config.users.tokenLifetimeSeconds);
        return reply.redirect(DONE, 303);
      }
      if (!pending) return undefined;
      const step = await secondStep({ users, request, caller, form, action: '/users/signin', pending, next: DONE });
      return step.kind === 'form' ? show(`<div class="card narrow">${step.html}</div>`) : undefined;
    },
  };
}

/** The two forms of a code page: asking for a code under `intro`, and entering it (open once used). */
export function askAndEnter(intro: string, asked: string, entered: string, open: boolean): string {
  return (
    `<section class="card narrow"><p>${intro}</p>${asked}</section>` +
    `<details class="card narrow"${open ? ' open' : ''}><summary>I have a code</summary>${entered}</details>`
  );
}

/** The field a code is entered in, named after where it came from. */
export function codeField(name: string): FieldConf {
  return {
    id: 'code',
    name,
    datatype: 'string',
    required: true,
    size: 20,
    settings: { autocomplete: 'one-time-code' },
  };
}
