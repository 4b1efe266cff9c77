import {
  HTMLForm,
  type ActionConf,
  type ActionKw,
  type ActionResult,
  type FieldError,
  type FormInit,
} from '@roost/forms';
import { commonErrors, isRoostError, type RoostError } from '../../core/errors.js';
import { rethrowThrottled } from './page-errors.js';

/** What a page does with valid input: one call of a domain service. */
// biome-ignore lint/suspicious/noConfusingVoidType: most performs return nothing, and say so by their type
export type Perform = (data: Record<string, unknown>) => Promise<PerformOutcome | void>;

export interface PerformOutcome {
  /** Shown after success (flashed when redirecting). */
  message?: string;
  /** Where to go after success (post, redirect, get); without it the page shows the message. */
  redirect?: string;
}

export interface PageFormInit extends FormInit {
  perform: Perform;
  /** Field names of the service's answers that are called otherwise in the form (`newOwner` → `owner`). */
  fieldAliases?: Readonly<Record<string, string>>;
  /** Words for a field's reason where the general ones do not fit. */
  describe?: (field: string, reason: string) => string | undefined;
  /** The session's CSRF token, sent back in a hidden field (admin pages). */
  csrfToken?: string;
}

/** The seed's field reasons (and the stores' own), in words. */
const REASONS: Readonly<Record<string, string>> = {
  required: 'Required.',
  'too long': 'Too long.',
  'too short': 'Too short.',
  invalid_email: 'Not a valid email address.',
  invalid: 'Not valid.',
  exists: 'Already taken.',
  unknown_user: 'There is no such user.',
  'not found': 'Not found.',
  not_found: 'Not found.',
  reserved: 'This name is reserved.',
  duplicate: 'Named twice.',
  // users/breached-passwords.ts: the password is in a list of passwords known from data breaches.
  breached: 'This password is known from data breaches; choose another.',
};

/** The hidden action of a form's first showing; added to the page's own actions. */
const START: ActionConf = { id: 'default', method: 'startForm', name: 'Initialize', hidden: true };

/** An error whose sentence only says "some fields are invalid": the reasons speak instead. */
const isGeneral = (err: RoostError) =>
  err.code === 'validation_failure' && err.message === commonErrors.codes.validation_failure.message;

/**
 * A page form whose saving action calls one domain service (`perform`): the form library
 * validates the fields first, then the service decides. A refusal (`RoostError`) is shown on
 * the form — its field problems at their fields, its sentence above them — and nothing is
 * stored; success redirects with a flashed message or shows the message.
 *
 * @example
 * const form = new PageForm({ request, fields, actions: [{ id: 'save', method: 'submit', name: 'Save' }],
 *   perform: async (data) => {
 *     await store.set(principal, { key: String(data.key), value: String(data.value) });
 *     return { message: 'Saved.', redirect: '/admin/data/data' };
 *   } });
 */
export class PageForm extends HTMLForm {
  static override defaultActions: readonly ActionConf[] = [START];
  static override defaultSubsets = {};

  readonly #perform: Perform;
  readonly #aliases: Readonly<Record<string, string>>;
  readonly #describe: PageFormInit['describe'];

  constructor(init: PageFormInit) {
    const { perform, fieldAliases, describe, csrfToken, actions, ...rest } = init;
    super({
      actions: actions?.some((a) => a.id === START.id) ? actions : [...(actions ?? []), { ...START }],
      widget: { item_template: 'field_onecolumn', action_template: 'form_actions_onecolumn', action_css_class: 'btn' },
      ...(csrfToken !== undefined ? { hiddenValues: { csrf: csrfToken } } : {}),
      ...rest,
    });
    this.#perform = perform;
    this.#aliases = fieldAliases ?? {};
    this.#describe = describe;
  }

  /** The saving action: validate, call the service once, show its answer. */
  async submit(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return this.finishFormProcessing(false, data, [], errors, kw, false);
    let outcome: PerformOutcome;
    try {
      outcome = (await this.#perform(data)) ?? {};
    } catch (err) {
      if (!isRoostError(err)) throw err;
      // A sign-in refused for its address is the page's 429, not a problem of the form.
      rethrowThrottled(err);
      const explained = await this.#explain(err);
      return this.finishFormProcessing(false, data, explained.messages, explained.errors, kw, false);
    }
    await this.signal('success', { data });
    const redirect = outcome.redirect ? { redirectSuccess: outcome.redirect } : {};
    return this.finishFormProcessing(
      data,
      data,
      outcome.message ? [outcome.message] : [],
      undefined,
      { ...kw, ...redirect },
      true,
    );
  }

  /**
   * A refusal as the form shows it: each field problem at its field, in the page's words, else
   * the error's own sentence (a specific one, such as why a name is refused), else the reason's
   * general words; problems of fields the form lacks, and errors without fields, above the form.
   */
  async #explain(err: RoostError): Promise<{ messages: string[]; errors: FieldError[] }> {
    const ids = new Set((await this.compiled()).map((c) => c.field.id));
    const specific = !isGeneral(err);
    const messages: string[] = [];
    const errors: FieldError[] = [];
    for (const [raw, reason] of err.fields) {
      const field = this.#aliases[raw] ?? raw;
      const words = this.#describe?.(field, reason) ?? (specific ? err.message : (REASONS[reason] ?? reason));
      if (ids.has(field)) errors.push({ field, messages: [words] });
      else messages.push(specific ? words : `${field}: ${words}`);
    }
    if (errors.length === 0 && messages.length === 0) messages.push(err.message);
    return { messages, errors };
  }
}
