import { escapeHtml, HTMLForm, type ActionCallback } from '@roost/forms';
import type { FastifyRequest } from 'fastify';
import { isRoostError } from '../../core/errors.js';
import { withClient, type RequestCaller } from '../../http/auth.js';
import type { TotpSetup, UserService } from '../../users/index.js';
import type { FormRequest } from '@roost/forms';
import { rethrowThrottled } from '../page-kit/page-errors.js';
import { textParam } from '../page-kit/page-parts.js';

/**
 * The second step of the sign-in pages (signin-pages.ts): after the right password of an
 * account with a second factor, a form for the code of the authenticator app or a recovery
 * code, carrying the challenge (users/signin-challenge.ts). For an account that must set one up
 * (`enrol`), the form first shows the new secret as a QR code and as text; the first right code
 * confirms it, and the page then shows the recovery codes once. It calls `signin2` as the API
 * does, so the same throttling and one-time rules apply.
 */

/** What a `second_factor_required` failure carries (users/signin-challenge.ts). */
export interface PendingChallenge {
  challenge: string;
  enrol: boolean;
}

/** The challenge of a `second_factor_required` failure, or null for any other error. */
export function pendingChallenge(error: unknown): PendingChallenge | null {
  if (!isRoostError(error) || error.code !== 'second_factor_required') return null;
  const { challenge, enrol } = error.body;
  return typeof challenge === 'string' ? { challenge, enrol: enrol === true } : null;
}

/** The outcome of the second step's form: its html to show, or the session it made. */
export type SecondStepResult =
  | { kind: 'form'; html: string; head: string; failed: boolean }
  | { kind: 'signed_in'; token: string; recoveryCodes: string[] | undefined }
  | { kind: 'expired' };

interface SecondStepInput {
  users: UserService;
  request: FastifyRequest;
  caller: RequestCaller;
  form: FormRequest;
  /** The page the form posts to. */
  action: string;
  /** Set right after the first step; otherwise read from the posted form. */
  pending?: PendingChallenge;
  next: string;
}

/** A typed code of six digits is the app's; anything else a recovery code. */
const proofOf = (typed: string) =>
  /^\d{6}$/.test(typed.replace(/\s/g, '')) ? { code: typed.replace(/\s/g, '') } : { recoveryCode: typed };

/** A key in groups of four, as apps show and people type it. */
const spaced = (key: string) => key.replace(/(.{4})/g, '$1 ').trim();

/** A new secret as the pages show it: the QR code, and the key to type by hand. */
export function totpSetupHtml(setup: TotpSetup, intro: string): string {
  return (
    `<div class="enrol"><p>${escapeHtml(intro)}, then enter the six digits it shows.</p>` +
    `<div class="qr">${setup.qrSvg}</div>` +
    `<p class="muted">Or type this key into the app: <code>${escapeHtml(spaced(setup.secret))}</code></p></div>`
  );
}

/** The enrolment of a sign-in for the account the challenge names (a new secret each time). */
async function enrolment(users: UserService, caller: RequestCaller, challenge: string): Promise<string> {
  const setup = await users.totpEnrol(caller, { challenge });
  return totpSetupHtml(setup, 'Your account needs a second factor. Scan this code with an authenticator app');
}

export async function secondStep(input: SecondStepInput): Promise<SecondStepResult> {
  const { users, request, caller, form, action, next } = input;
  const pending = input.pending ?? {
    challenge: textParam(form.body?.challenge),
    enrol: textParam(form.body?.enrol) === '1',
  };
  let signedIn: { token: string; recoveryCodes?: string[] } | undefined;
  let expired = false;
  const verify: ActionCallback = async function (this: HTMLForm) {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return [false, await this.render(data, [], errors)];
    try {
      signedIn = await users.signin2(withClient(caller, request), {
        challenge: pending.challenge,
        ...proofOf(String(data.code ?? '')),
      });
      return [true, ''];
    } catch (err) {
      if (!isRoostError(err)) throw err;
      rethrowThrottled(err);
      if (err.code === 'invalid_token') {
        expired = true;
        return [true, ''];
      }
      return [false, await this.render({ ...data, code: '' }, [err.message], undefined, false, false)];
    }
  };
  const htmlForm = new HTMLForm({
    request: form,
    formid: 'verify',
    action,
    fields: [
      {
        id: 'code',
        name: pending.enrol ? 'Code from the app' : 'Code from the app, or a recovery code',
        datatype: 'string',
        size: 40,
        required: true,
        settings: { autocomplete: 'one-time-code' },
      },
      { id: 'challenge', datatype: 'string', size: 200, hidden: true },
      { id: 'enrol', datatype: 'string', size: 1, hidden: true },
      { id: 'next', datatype: 'string', size: 2000, hidden: true },
    ],
    actions: [
      { id: 'default', method: 'startForm', hidden: true },
      { id: 'verify', method: verify, name: 'Verify', cssClass: 'btn btn-primary' },
    ],
    widget: { item_template: 'field_onecolumn', action_template: 'form_actions_onecolumn' },
  });
  // Right after the first step the request names its action (`signin$`), not this form's: the
  // default action shows the form with the challenge.
  const { result, html } = await htmlForm.process({
    defaultData: { challenge: pending.challenge, enrol: pending.enrol ? '1' : '', next },
  });
  if (expired) return { kind: 'expired' };
  if (signedIn) return { kind: 'signed_in', token: signedIn.token, recoveryCodes: signedIn.recoveryCodes };
  // Enrolling: a new secret with each showing (a wrong first code may mean a wrong scan).
  let intro = '<p>Enter the code your authenticator app shows, or one of your recovery codes.</p>';
  if (pending.enrol) {
    try {
      intro = await enrolment(users, caller, pending.challenge);
    } catch (err) {
      if (isRoostError(err) && err.code === 'invalid_token') return { kind: 'expired' };
      throw err;
    }
  }
  return { kind: 'form', html: intro + html, head: await htmlForm.htmlHead(), failed: result === false };
}

/** The recovery codes of a sign-in that set up the authenticator: shown once, with the way on. */
export function recoveryCodesHtml(codes: readonly string[], next: string): string {
  return (
    '<p>Your authenticator is set up. Keep these recovery codes somewhere safe: each signs you in once ' +
    'if you lose your phone. They are not shown again.</p>' +
    `<ul class="recovery-codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ul>` +
    `<p><a class="btn btn-primary" href="${escapeHtml(next)}">Continue</a></p>`
  );
}
