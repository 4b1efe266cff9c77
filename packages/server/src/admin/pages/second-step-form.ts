import { escapeHtml, HTMLForm, type ActionCallback } from '@roost/forms';
import type { FastifyRequest } from 'fastify';
import { isRoostError } from '../../core/errors.js';
import { withClient, type RequestCaller } from '../../http/auth.js';
import type { UserService } from '../../users/index.js';
import type { FormRequest } from '@roost/forms';
import { METHOD_PAGES } from '../signin-methods/index.js';
import { rethrowThrottled } from '../page-kit/page-errors.js';
import { textParam } from '../page-kit/page-parts.js';

/**
 * The second step of the sign-in pages (signin-pages.ts): after the right password of an
 * account with a second factor, a form with one code field, carrying the challenge
 * (users/signin-challenge.ts). The sign-in methods whose answer is typed there bring their part
 * (`secondStep` of admin/signin-methods/method-page.ts): their words in the field and the first
 * sentence, and which input a typed answer is. For an account that must set a factor up
 * (`enrol`), the method that can be set up then shows its new secret first; the first right code
 * confirms it, and the page then shows the recovery codes once. It calls `signin2` as the API
 * does, so the same throttling and one-time rules apply.
 */

/** What a `second_factor_required` failure carries (users/signin-challenge.ts). */
export interface PendingChallenge {
  challenge: string;
  enrol: boolean;
  /** The methods the challenge lists (users/signin-challenge.ts); empty: not known, every part is asked. */
  methods: readonly string[];
}

/** The challenge of a `second_factor_required` failure, or null for any other error. */
export function pendingChallenge(error: unknown): PendingChallenge | null {
  if (!isRoostError(error) || error.code !== 'second_factor_required') return null;
  const { challenge, enrol, methods } = error.body;
  const listed = Array.isArray(methods) ? methods.filter((m): m is string => typeof m === 'string') : [];
  return typeof challenge === 'string' ? { challenge, enrol: enrol === true, methods: listed } : null;
}

/** The outcome of the second step's form: its html to show, or the session it made. */
export type SecondStepResult =
  | { kind: 'form'; html: string; head: string; failed: boolean }
  | { kind: 'signed_in'; token: string; recoveryCodes: string[] | undefined; deviceToken: string | undefined }
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

/** The methods' parts of the second step, in the order of the list (admin/signin-methods/index.ts). */
const STEPS = METHOD_PAGES.flatMap((m) => (m.secondStep ? [m.secondStep] : []));

/** The parts a challenge asks for: those of the methods it lists (all when it lists none), as `unless` says. */
function askedOf(methods: readonly string[]): typeof STEPS {
  if (methods.length === 0) return STEPS.filter((step) => !step.prepare);
  return STEPS.filter((step) => methods.includes(step.method) && !(step.unless && methods.includes(step.unless)));
}

/** The typed answer as the first method asked that knows its shape takes it. */
function proofOf(asked: typeof STEPS, typed: string): Record<string, string> {
  for (const step of asked) {
    const proof = step.proof(typed);
    if (proof) return proof;
  }
  return {};
}

export async function secondStep(input: SecondStepInput): Promise<SecondStepResult> {
  const { users, request, caller, form, action, next } = input;
  const pending = input.pending ?? {
    challenge: textParam(form.body?.challenge),
    enrol: textParam(form.body?.enrol) === '1',
    methods: textParam(form.body?.methods).split(',').filter(Boolean),
  };
  // An enrolment is the first method's that can be set up during a sign-in; only its answer is asked then.
  const enrolling = pending.enrol ? STEPS.find((m) => m.enrolment) : undefined;
  const asked = enrolling ? [enrolling] : askedOf(pending.methods);
  let signedIn: { token: string; recoveryCodes?: string[]; deviceToken?: string } | undefined;
  // Trusting the device is offered where the configuration allows it (users/trusted-devices.ts).
  const trustDays = Math.round(users.settings.trustedDeviceMs / (24 * 3600 * 1000));
  let expired = false;
  const verify: ActionCallback = async function (this: HTMLForm) {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return [false, await this.render(data, [], errors)];
    try {
      signedIn = await users.signin2(withClient(caller, request), {
        challenge: pending.challenge,
        ...proofOf(asked, String(data.code ?? '')),
        ...(trustDays > 0 && data.trust === true ? { trustDevice: true } : {}),
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
        name: asked.map((m) => m.fieldName).join(', or '),
        datatype: 'string',
        size: 40,
        required: true,
        settings: { autocomplete: 'one-time-code' },
      },
      { id: 'challenge', datatype: 'string', size: 200, hidden: true },
      { id: 'enrol', datatype: 'string', size: 1, hidden: true },
      { id: 'methods', datatype: 'string', size: 200, hidden: true },
      { id: 'next', datatype: 'string', size: 2000, hidden: true },
      ...(trustDays > 0
        ? [{ id: 'trust', name: `Trust this device for ${trustDays} days`, datatype: 'checkbox' }]
        : []),
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
    defaultData: {
      challenge: pending.challenge,
      enrol: pending.enrol ? '1' : '',
      methods: pending.methods.join(','),
      next,
    },
  });
  if (expired) return { kind: 'expired' };
  if (signedIn) {
    const { token, recoveryCodes, deviceToken } = signedIn;
    return { kind: 'signed_in', token, recoveryCodes, deviceToken };
  }
  let intro = `<p>Enter ${asked.map((m) => m.prompt).join(', or ')}.</p>`;
  // Right after the first step (not on a wrong code's showing again): a part's own preparation (a text sent).
  for (const step of input.pending ? asked : []) {
    try {
      const prepared = (await step.prepare?.(users, withClient(caller, request), pending.challenge)) ?? '';
      intro = prepared + intro;
    } catch (err) {
      if (!isRoostError(err)) throw err;
      intro = `<p class="error">${escapeHtml(err.message)}</p>${intro}`;
    }
  }
  if (enrolling?.enrolment) {
    try {
      intro = await enrolling.enrolment(users, caller, pending.challenge);
    } catch (err) {
      if (isRoostError(err) && err.code === 'invalid_token') return { kind: 'expired' };
      throw err;
    }
  }
  return { kind: 'form', html: intro + html, head: await htmlForm.htmlHead(), failed: result === false };
}
