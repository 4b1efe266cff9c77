/* A form over several pages, one subset of fields per step (Django formtools' wizard, deform's
   wizard): back and forward, a step indicator, validation per step and of the whole at the end.
   Between requests the answers live in the page, signed, or in the app's session
   (wizard/wizard-state.ts); uploads wait in the upload stash (request/upload-stash.ts), as a page
   that comes back with errors keeps them (html-form.ts). */
import type { ActionConf, ActionKw, ActionResult } from '../conf/action-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import { fieldDatatype, type FieldConf } from '../conf/field-conf.js';
import { mapFiles } from '../form/field-files.js';
import type { Subsets } from '../conf/subset.js';
import type { FieldList, FormData } from '../form/form-data.js';
import type { FormInit } from '../form/form.js';
import { HTMLForm, type ProcessResult } from '../form/html-form.js';
import { isXhr, type UploadedFile } from '../request/form-request.js';
import { defaultUploadStash } from '../request/upload-stash.js';
import type { FieldError } from '../validate/validation-error.js';
import { stepIndicator } from './step-indicator.js';
import {
  signedStates,
  storedStates,
  WizardStateError,
  WizardStateExpiredError,
  type StateCodec,
  type WizardState,
  type WizardStore,
} from './wizard-state.js';

/** The request name of the hidden field that carries the wizard's state (or its key in the store). */
export const wizardStateKey = '$wizard';

/** One step: a subset of the form, and the name the step indicator shows (the subset's name if none). */
export interface WizardStep {
  subset: string;
  name?: string;
}

/**
 * A wizard's arguments: a form's, with `subsets` holding each step's fields, `steps` naming them
 * in order, and either `secret` (the state signed in the page) or `store` (the state in the
 * session: `sessionWizardStore`).
 */
export interface WizardInit<L extends FieldList, S extends Subsets | undefined> extends FormInit<L, S> {
  steps: ReadonlyArray<string | WizardStep>;
  /** At least 32 characters, kept by the app (not in the code); signs the state in the page. */
  secret?: string;
  store?: WizardStore;
  /**
   * How long a state stays usable after the request that wrote it, in ms (default a day): an
   * older one is refused (`WizardStateExpiredError`) and the wizard starts again with a message.
   */
  maxAgeMs?: number;
}

/** A state's default maximum age: a page left open overnight still goes on. */
const defaultMaxAgeMs = 86_400_000;

/** What `WizardForm.process` returns: a form's result, the step now shown, and the whole data once done. */
export interface WizardResult<L extends FieldList> extends ProcessResult {
  /** The subset of the step shown. */
  step: string;
  /** Every step's data, validated again as a whole; set only by the request that finished the wizard. */
  data: FormData<L> | undefined;
  /** Set when the page's state was refused (changed, from another form, no longer known): the wizard started again. */
  stateError: WizardStateError | undefined;
}

/**
 * A form shown one subset at a time. Next validates the step's fields only and goes on; Back keeps
 * what was typed (unvalidated) and goes back; Finish validates the last step, then every step's
 * saved data again through its own fields (a saved state that is wrong sends the user to the step
 * at fault), fires `success` with the whole data and finishes as `processForm` does (redirects,
 * ajax replies). Works as full pages without JavaScript and with `use_ajax`.
 *
 * @example
 * const form = new WizardForm({
 *   request, secret: process.env.FORM_SECRET, fields,
 *   subsets: { account: { fields: ['email'] }, profile: { fields: ['name'] } },
 *   steps: [{ subset: 'account', name: 'Account' }, { subset: 'profile', name: 'Profile' }],
 * });
 * const { html, response, data } = await form.process({ redirectSuccess: '/welcome' });
 */
export class WizardForm<
  const L extends FieldList = FieldList,
  S extends Subsets | undefined = Subsets | undefined,
> extends HTMLForm<L, S> {
  // Next (or Finish) comes first in the page: Enter in a text field presses the first submit button.
  static override defaultActions: readonly ActionConf[] = [
    { id: 'default', method: 'startWizard', hidden: true },
    { id: 'next', method: 'nextStep', name: 'Next', cssClass: 'btn btn-primary' },
    { id: 'finish', method: 'finishWizard', name: 'Finish', cssClass: 'btn btn-primary' },
    { id: 'back', method: 'previousStep', name: 'Back', cssClass: 'btn btn-secondary', skipValidation: true },
    // The browser's Back and Forward over ajax (wizard/wizard-script.ts): no button, the script sends it.
    { id: 'goto', method: 'gotoStep', hidden: true },
  ];
  static override defaultSubsets: Subsets = {};

  readonly steps: readonly WizardStep[];
  readonly #secret: string | undefined;
  readonly #store: WizardStore | undefined;
  readonly #maxAgeMs: number;
  #codec: StateCodec | undefined;
  #state: WizardState = { step: 0, data: {} };
  #stateError: WizardStateError | undefined;
  #finished: FormData<L> | undefined;

  constructor({ steps, secret, store, maxAgeMs = defaultMaxAgeMs, ...init }: WizardInit<L, S>) {
    super(init);
    if (!steps.length) throw new ConfigurationError('Option "steps": a wizard needs at least one step');
    if (secret === undefined && store === undefined)
      throw new ConfigurationError('Option "secret" (the state signed in the page) or "store" (the session) is needed');
    if (secret !== undefined && secret.length < 32)
      throw new ConfigurationError('Option "secret": at least 32 characters, kept by the app');
    if (!(typeof maxAgeMs === 'number' && maxAgeMs > 0))
      throw new ConfigurationError('Option "maxAgeMs": a number of milliseconds greater than 0');
    this.steps = steps.map((s) => (typeof s === 'string' ? { subset: s } : s));
    // A signed state is readable in the page (signed, not encrypted): a password must not travel there.
    const password = secret !== undefined ? this.#stepFields().find((f) => fieldDatatype(f) === 'password') : undefined;
    if (password)
      throw new ConfigurationError(`Field "${password.id}": a password is not kept in the page; give "store" for it`);
    this.#secret = secret;
    this.#store = store;
    this.#maxAgeMs = maxAgeMs;
  }

  /** The fields the steps' subsets name that can be seen before setup (inline, or among the form's `fields`). */
  #stepFields(): FieldConf[] {
    const own = this.fields.filter((f): f is FieldConf => typeof f !== 'string');
    return this.steps.flatMap((step) =>
      (this.subsets[step.subset]?.fields ?? []).flatMap((entry) =>
        typeof entry === 'string' ? own.filter((f) => f.id === entry) : [entry],
      ),
    );
  }

  /** The step shown (its index in `steps`). */
  get stepIndex(): number {
    return this.#state.step;
  }

  #step(index = this.#state.step): WizardStep {
    const step = this.steps[index];
    if (!step) throw new ConfigurationError(`No wizard step ${index}`);
    return step;
  }

  /**
   * Reads the state the page carries (a refused one starts the wizard again, with a message),
   * sets the form up with the step's subset and processes the request as `HTMLForm` does.
   */
  override async process(kw: ActionKw = {}): Promise<WizardResult<L>> {
    this.#finished = undefined;
    this.#stateError = undefined;
    this.#codec = this.#stateCodec();
    try {
      const state = await this.#codec.read(this.getFormValue(wizardStateKey));
      if (state && !this.steps[state.step]) throw new WizardStateError('The saved steps of this form were changed');
      this.#state = state ?? { step: 0, data: {} };
    } catch (e) {
      if (!(e instanceof WizardStateError)) throw e;
      this.#stateError = e;
      this.#state = { step: 0, data: {} };
      this.removeActionsFromRequest();
    }
    await this.setup(this.#step().subset);
    const result = await super.process(kw);
    return { ...result, step: this.#step().subset, data: this.#finished, stateError: this.#stateError };
  }

  /** Signed states for this form id (`secret`), else states in the store (the constructor requires one of them). */
  #stateCodec(): StateCodec {
    if (this.#secret !== undefined) return signedStates(this.#secret, this.options.formid, this.#maxAgeMs);
    if (this.#store) return storedStates(this.#store, this.#maxAgeMs);
    throw new ConfigurationError('Option "secret" (the state signed in the page) or "store" (the session) is needed');
  }

  /** The form's actions for the step shown: no Back on the first, Finish instead of Next on the last. */
  override getActions(removeHidden = false): ActionConf[] {
    const { step } = this.#state;
    const last = step >= this.steps.length - 1;
    return super
      .getActions(removeHidden)
      .filter((a) => !(a.id === 'back' && step === 0) && a.id !== (last ? 'next' : 'finish'));
  }

  /** The step shown with its saved data (or the defaults); after a refused state, step one with a message. */
  async startWizard(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const saved = this.#state.data[this.#step().subset];
    const data = saved ?? (await this.startFormData(kw));
    if (!this.#stateError) return [true, await this.render(data)];
    const msg = this.t(
      this.#stateError instanceof WizardStateExpiredError
        ? 'This form was left unused too long; please start again.'
        : 'The saved steps of this form could not be used; please start again.',
    );
    const html = await this.render(data, [msg], undefined, false, false);
    // An ajax submit gets the form alone, as any reply with errors does (html-form.ts finishFormProcessing).
    if (this.options.use_ajax && isXhr(this.request)) this.sendResponse(html, { 'X-Result': 'false' });
    return [false, html];
  }

  /** Validates the step's fields; when they pass, saves them and shows the next step. */
  async nextStep(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    return this.#forwardTo(this.#state.step + 1, kw);
  }

  /** Saves what the step holds as typed (not validated: going back never fails) and shows the step before. */
  async previousStep(_action: ActionConf, _kw: ActionKw = {}): Promise<ActionResult> {
    return this.#backTo(Math.max(0, this.#state.step - 1));
  }

  /**
   * Goes to the step whose index the request gives as `goto$` (the script's history of steps over
   * ajax, wizard/wizard-script.ts): an earlier one (or this one) as Back does, what was typed
   * kept and not validated; a later one as Next does, this step validated first, and no further
   * than the first step not answered yet.
   */
  async gotoStep(action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const given = this.getFormValue(`${action.id}${this.options.actionPostfix}`);
    const at = this.#state.step;
    const target = typeof given === 'string' && /^\d+$/.test(given) && this.steps[Number(given)] ? Number(given) : at;
    if (target <= at) return this.#backTo(target);
    let to = at + 1;
    while (to < target && this.#state.data[this.#step(to).subset]) to += 1;
    return this.#forwardTo(to, kw);
  }

  /** Saves what the step holds as typed (not validated: going back never fails) and shows step `index`. */
  async #backTo(index: number): Promise<ActionResult> {
    const [, data] = await this.extract(this.getFormValues());
    this.#state.data[this.#step().subset] = await this.#saved(data);
    return this.#show(index);
  }

  /** Validates the step's fields; when they pass, saves them and shows step `index`. */
  async #forwardTo(index: number, kw: ActionKw): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return this.finishFormProcessing(false, data, [], errors, kw, false);
    this.#state.data[this.#step().subset] = await this.#saved(data);
    return this.#show(index);
  }

  /**
   * Validates the last step, then each step's saved data again through its own fields, as one
   * form would: what a changed or stale state holds (an upload expired, a value the fields no
   * longer take) is caught and shown on its step. Then `success` fires with the whole data.
   */
  async finishWizard(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return this.finishFormProcessing(false, data, [], errors, kw, false);
    this.#state.data[this.#step().subset] = await this.#saved(data);
    const whole: Record<string, unknown> = {};
    for (const [index, step] of this.steps.entries()) {
      await this.setup(step.subset);
      const saved = await this.#restored(this.#state.data[step.subset] ?? {});
      const [stepOk, stepData, stepErrors] = await this.validateSchema(saved);
      if (!stepOk) return this.#show(index, [this.t('Please check this step again')], stepErrors);
      Object.assign(whole, stepData);
    }
    await this.#codec?.done(this.getFormValue(wizardStateKey));
    this.#state = { step: 0, data: {} };
    await this.setup(this.#step().subset);
    this.#finished = whole as FormData<L>;
    await this.signal('success', { data: whole });
    const msgs = kw.success_message ? [kw.success_message] : [];
    return this.finishFormProcessing(whole, {}, msgs, undefined, kw, true);
  }

  /** Shows step `index` with its saved data (or the defaults); ajax requests get the form as their reply. */
  async #show(index: number, msgs: string[] = [], errors?: FieldError[]): Promise<ActionResult> {
    this.#state.step = index;
    await this.setup(this.#step().subset);
    const data = this.#state.data[this.#step().subset] ?? (await this.loadDefaultData());
    const failed = Boolean(errors?.length);
    const html = await this.render(data, msgs, errors, false, failed ? false : undefined);
    if (this.options.use_ajax && isXhr(this.request)) this.sendResponse(html, { 'X-Result': String(!failed) });
    return [!failed, html];
  }

  /**
   * A step's data as the state keeps it: JSON, each new upload (at any depth) in the stash and
   * named by its token (shown as the kept file by fields/file-widget.ts, taken back by `#restored`).
   */
  async #saved(data: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const stash = this.options.uploadStash ?? defaultUploadStash;
    return mapFiles(this.getFields(), data, async (file) => {
      const kept = file.kept ?? (await stash.keep(file));
      const shown: UploadedFile = { filename: file.filename, size: file.size, tempfile: true, kept };
      return file.mime ? { ...shown, mime: file.mime } : shown;
    });
  }

  /** Saved data with its uploads taken back from the stash (an expired one is missing, so a required one fails). */
  async #restored(saved: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const stash = this.options.uploadStash ?? defaultUploadStash;
    return mapFiles(this.getFields(), saved, async (file) => {
      const taken = file.kept ? await stash.take(file.kept) : undefined;
      return taken ? { ...taken, kept: file.kept } : undefined;
    });
  }

  /** The form with the state in its hidden field and the step indicator in front (not for `messagesOnly`). */
  override async render(
    data: Readonly<Record<string, unknown>>,
    msgs?: string[],
    errors?: FieldError[],
    messagesOnly = false,
    result?: unknown,
  ): Promise<string> {
    if (messagesOnly || !this.#codec) return super.render(data, msgs, errors, messagesOnly, result);
    const token = await this.#codec.write(this.#state);
    this.options.hiddenValues = { ...this.options.hiddenValues, [wizardStateKey]: token };
    const html = await super.render(data, msgs, errors, false, result);
    const names = this.steps.map((s) => s.name ?? s.subset);
    // Inside the container (render/form-renderer.ts `renderForm`), so an ajax reply brings it along.
    // A finished wizard's fresh first step takes no place in the history of its steps: Back from
    // there would ask the emptied form for a step it no longer has (wizard/wizard-script.ts).
    const tracked = !this.#finished && this.getActions().some((a) => a.id === 'goto');
    const goto = tracked ? `goto${this.options.actionPostfix}` : undefined;
    const nav = stepIndicator(names, this.#state.step, this.t, goto);
    return html.replace(/^(<div[^>]*data-roost-form-container[^>]*>)/, (open) => `${open}${nav}`);
  }
}
