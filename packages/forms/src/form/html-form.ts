/* HTMLForm: request processing (action lookup, built-in actions, the finish step with redirects
   and ajax replies) and rendering. Over 150 lines because it holds the seed's HTMLForm method
   table; markup is in render/. */
import type { ActionCallback, ActionConf, ActionKw, ActionResult } from '../conf/action-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import type { FieldConf } from '../conf/field-conf.js';
import type { Subsets } from '../conf/subset.js';
import type { WidgetRequirements } from '../fields/widget.js';
import { renderActions, renderForm, renderItems, renderMessages, type RenderInput } from '../render/form-renderer.js';
import { defaultStaticUrl, formRequirements, headTags } from '../render/html-head.js';
import { isUploadedFile, isXhr, type FormValues } from '../request/form-request.js';
import type { FieldError } from '../validate/validation-error.js';
import { Form } from './form.js';
import type { FieldList } from './form-data.js';
import { assertResolvable, resolveRedirect } from './redirect.js';
import { defaultUploadStash } from '../request/upload-stash.js';
import { LIVE_KEY, liveSpec } from '../live/live-spec.js';
import { textValue } from '../fields/widget.js';
import { mapFiles } from './field-files.js';

/**
 * A complete reply the host must send instead of a page with the form: a redirect (302, or for
 * ajax requests 200 with `X-Relocate` and a JSON body), an ajax answer (the form html with
 * `X-Result`), or `successResponseBody`. `messages` are meant to be flashed into the session on
 * redirects.
 */
export interface FormResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  messages?: string[];
  location?: string;
}

/** What `process` returns. When `response` is set, send it as is; else show `html`. */
export interface ProcessResult {
  result: unknown;
  html: string;
  action: ActionConf;
  response?: FormResponse;
}

/**
 * Whether a request name (split at its dots) names a repeat at any depth: `offices` in the group
 * `company` is `company.offices`, `rooms` in the repeat `floors` is `floors.<n>.rooms`
 * (fields/group-widgets.ts).
 */
function namesRepeat(fields: readonly FieldConf[], parts: readonly string[]): boolean {
  const [head, ...rest] = parts;
  const field = fields.find((f) => f.id === head);
  if (field?.datatype === 'group') return namesRepeat(field.fields ?? [], rest);
  if (field?.datatype !== 'repeat') return false;
  if (!rest.length) return true;
  const [index, ...inner] = rest;
  return /^\d+$/.test(index ?? '') && namesRepeat(field.fields ?? [], inner);
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * A form that processes requests and renders HTML. `process()` finds the requested action
 * (`<id>$` in the request values) or the default action, and calls its method.
 *
 * @example
 * const form = new HTMLForm({ request, fields: [{ id: 'name', name: 'Name', required: true }], actions: [
 *   { id: 'default', method: 'startForm', hidden: true }, { id: 'send', method: 'processForm', name: 'Send' }] });
 * const { result, html, response } = await form.process({ success_message: 'Thanks!' });
 */
export class HTMLForm<
  const L extends FieldList = FieldList,
  S extends Subsets | undefined = Subsets | undefined,
> extends Form<L, S> {
  static override defaultActions: readonly ActionConf[] = [
    { id: 'default', method: 'startForm', name: 'Initialize', hidden: true },
    { id: 'edit', method: 'processForm', name: 'Save', cssClass: 'btn btn-primary' },
  ];
  static override defaultSubsets: Subsets = { edit: { actions: ['edit'], defaultAction: 'default' } };

  /** Set by redirects, ajax replies and `successResponseBody` during processing. */
  response: FormResponse | undefined;

  /**
   * Processes the request: runs the requested action, else the default action (subset's, then
   * `kw.defaultAction`, the form's `defaultAction`, `default`). `kw` overrides `action.options`
   * and reaches the callback.
   *
   * @example
   * const { result, html, action, response } = await form.process({ redirectSuccess: '/thanks' });
   */
  async process(kw: ActionKw = {}): Promise<ProcessResult> {
    await this.ensureSetup();
    this.response = undefined;
    const values = this.getFormValues();
    const configured = this.getActions();
    const checked = await this.#liveCheck(values, configured);
    if (checked) return checked;
    const changed = await this.#repeatChanged(values, configured);
    if (changed) return changed;
    let action = configured.find((a) => values[`${a.id}${this.options.actionPostfix}`] !== undefined);
    if (!action) {
      const def = this.subsetDefaultAction || kw.defaultAction || this.defaultAction || 'default';
      action = typeof def === 'string' ? [...configured, ...this.actions].find((a) => a.id === def) : def;
    }
    if (!action) throw new ConfigurationError('No action to process the form found');
    this.#checkRedirects(configured, kw);
    const callback = this.actionCallback(action);
    const [result, html] = await callback.call(this, action, { ...action.options, ...kw });
    return { result, html, action, response: this.response };
  }

  /**
   * An item added to, removed from or moved in a `repeat` field without JavaScript (its
   * `<id>$add`, `<id>$remove`, `<id>$up` or `<id>$down` button, fields/group-widgets.ts): the
   * form again with the values as they are, one item more, less or moved, nothing validated and
   * no action run. Undefined for other requests.
   */
  async #repeatChanged(values: FormValues, actions: readonly ActionConf[]): Promise<ProcessResult | undefined> {
    const fields = this.getFields();
    const pressed = Object.keys(values).some((key) => {
      const button = /^(.+)\$(add|remove|up|down)$/.exec(key)?.[1];
      return button !== undefined && namesRepeat(fields, button.split('.'));
    });
    if (!pressed) return undefined;
    const [, data] = await this.extract(values);
    const action = actions.find((a) => a.id === 'default') ?? actions[0];
    if (!action) throw new ConfigurationError('No action to process the form found');
    // The page comes back without a file input filled: an upload chosen before the press is kept.
    return { result: undefined, html: await this.render(await this.#keepUploads(data)), action, response: undefined };
  }

  /**
   * A live check of one field (`liveValidation`, live/live-spec.ts): the request names it under
   * `roost$validate` and carries the form's values; the answer is JSON `{ field, messages, inputs }`
   * (and `faults`, each input's messages, for a group or repeat),
   * the field's messages as a submit would give them (its rules and validators run, the form-level
   * `validateForm` not). No action runs and no event fires. Undefined for other requests.
   */
  async #liveCheck(values: FormValues, actions: readonly ActionConf[]): Promise<ProcessResult | undefined> {
    const name = this.options.liveValidation ? textValue(values[LIVE_KEY]) : undefined;
    if (name === undefined) return undefined;
    const id = name.replace(/-confirm$/, '').split('.')[0] ?? '';
    const known = this.getFields().some((f) => f.id === id);
    const r = known ? await this.run(values, { fromWidgets: true, convertOnly: false, only: id }) : undefined;
    const error = r?.errors.find((e) => e.field === id);
    const body = known
      ? {
          field: id,
          messages: error?.messages ?? [],
          inputs: error?.inputs ?? [],
          ...(error?.faults && { faults: error.faults }),
        }
      : { error: `Unknown field "${id}"` };
    const response = {
      status: known ? 200 : 400,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' },
      body: JSON.stringify(body),
    };
    const action = actions.find((a) => a.id === 'default') ?? actions[0] ?? { id: LIVE_KEY, method: 'startForm' };
    return { result: undefined, html: '', action, response };
  }

  /** Every redirect target this form may use can be resolved (redirect.ts, `assertResolvable`). */
  #checkRedirects(actions: readonly ActionConf[], kw: ActionKw): void {
    const targets = [
      this.options.redirectSuccess,
      this.options.redirectCancel,
      kw.redirectSuccess,
      kw.redirectCancel,
      ...actions.flatMap((a) => [a.options?.redirectSuccess, a.options?.redirectCancel]),
    ];
    for (const target of targets) if (typeof target === 'string') assertResolvable(target, this.view);
  }

  /**
   * The callback of an action: the callable, or the form method
   * named by `action.method` (`StartForm` finds `startForm`).
   */
  protected actionCallback(action: ActionConf): ActionCallback {
    if (typeof action.method === 'function') return action.method;
    for (const name of [action.method, lowerFirst(action.method)]) {
      const fn: unknown = Reflect.get(this, name);
      if (typeof fn === 'function') return fn as ActionCallback;
    }
    throw new ConfigurationError(`Action method "${action.method}" not found`);
  }

  /**
   * True when the request names the action (`<id>$` present, whatever its value).
   *
   * @example
   * form.isRequestAction('cancel');
   */
  isRequestAction(action: string | ActionConf): boolean {
    const id = typeof action === 'string' ? action : action.id;
    return this.getFormValues()[`${id}${this.options.actionPostfix}`] !== undefined;
  }

  /**
   * Removes every configured action key from the request, so `process()` runs the default action.
   *
   * @example
   * form.removeActionsFromRequest(); await form.process(); // the initial form
   */
  removeActionsFromRequest(): void {
    if (!this.request) return;
    const keys = new Set([...this.actions, ...this.getActions()].map((a) => `${a.id}${this.options.actionPostfix}`));
    const strip = (v: FormValues | undefined): FormValues | undefined =>
      v ? Object.fromEntries(Object.entries(v).filter(([k]) => !keys.has(k))) : v;
    this.request = {
      ...this.request,
      query: strip(this.request.query),
      body: strip(this.request.body),
      values: strip(this.request.values),
    };
  }

  /**
   * Initial render with empty data (`startEmpty`), `kw.defaultData` (fires `loadDefault`) or the
   * fields' defaults.
   *
   * @example
   * const [, html] = await form.startForm(action, { defaultData: { name: 'Ada' } });
   */
  async startForm(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    return [true, await this.render(await this.startFormData(kw))];
  }

  /** The data `startForm` renders: nothing (`startEmpty`), `kw.defaultData` or the defaults. */
  protected async startFormData(kw: ActionKw): Promise<Record<string, unknown>> {
    if (this.options.startEmpty) return {};
    if (!kw.defaultData) return this.loadDefaultData();
    const data = { ...kw.defaultData };
    await this.signal('loadDefault', { data });
    return data;
  }

  /** Initial render from the query string values (not converted). */
  async startRequestGET(_action: ActionConf, _kw: ActionKw = {}): Promise<ActionResult> {
    return [true, await this.render(this.#textValues('GET'))];
  }

  /** Initial render from the POST values (not converted). */
  async startRequestPOST(_action: ActionConf, _kw: ActionKw = {}): Promise<ActionResult> {
    return [true, await this.render(this.#textValues('POST'))];
  }

  #textValues(method: string): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(this.getFormValues(undefined, method)).filter(([, v]) => !isUploadedFile(v)),
    );
  }

  /**
   * Validates the request; on success the result is the validated data, `kw.success_message` is
   * shown and `success(data)` fires. `redirectSuccess` is ignored (the seed).
   *
   * @example
   * const [data, html] = await form.returnDataOnSuccess(action, { success_message: 'Thanks!' });
   */
  async returnDataOnSuccess(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    return this.validateAndFinish(kw, false);
  }

  /**
   * As `returnDataOnSuccess`, but honours `redirectSuccess`.
   *
   * @example
   * const [data, html] = await form.processForm(action, { redirectSuccess: 'page_url' });
   */
  async processForm(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    return this.validateAndFinish(kw, true);
  }

  /** The user an action works for: `kw.user`, else the form's (or its view's) user. */
  protected actionUser(kw: ActionKw): unknown {
    return kw.user ?? this.user;
  }

  /** Validate the request, fire `success(data)` and finish. */
  protected async validateAndFinish(kw: ActionKw, allowRedirect: boolean): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return this.finishFormProcessing(false, data, [], errors, kw, allowRedirect);
    const msgs = kw.success_message ? [kw.success_message] : [];
    await this.signal('success', { data });
    return this.finishFormProcessing(data, data, msgs, undefined, kw, allowRedirect);
  }

  /**
   * Fires `cancel`, then redirects to `redirectCancel` (kw or option) if set.
   *
   * @example
   * const [ok] = await form.cancel(action, { redirectCancel: 'obj_url' });
   */
  async cancel(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    await this.signal('cancel');
    const target = kw.redirectCancel ?? this.options.redirectCancel;
    if (target) this.redirect(resolveRedirect(target, this.context, this.view), []);
    return [true, ''];
  }

  /**
   * The success/failure handling shared by actions: failure re-renders with errors (ajax: the
   * form only, `X-Result: false`); success redirects (`redirectSuccess`, placeholders resolved
   * against the result object), or answers `successResponseBody`, or fires `messages` and renders
   * the form (`renderSuccess`) or the messages only (ajax: `X-Result: true`).
   */
  protected async finishFormProcessing(
    result: unknown,
    data: Readonly<Record<string, unknown>>,
    msgs: string[],
    errors: FieldError[] | undefined,
    kw: ActionKw = {},
    allowRedirect = true,
  ): Promise<ActionResult> {
    const ajax = this.options.use_ajax && isXhr(this.request);
    if (!result) {
      const html = await this.render(data, msgs, errors, false, false);
      if (ajax) this.sendResponse(html, { 'X-Result': 'false' });
      return [result, html];
    }
    const target = kw.redirectSuccess ?? this.options.redirectSuccess;
    if (allowRedirect && target) {
      const ctx = typeof result === 'object' && result !== data ? result : this.context;
      this.redirect(
        resolveRedirect(target, ctx, this.view),
        msgs.map((m) => this.t(m)),
      );
      return [result, ''];
    }
    const body = this.options.successResponseBody;
    if (body !== undefined) {
      const text = typeof body === 'function' ? await body(this) : body;
      this.sendResponse(text, { 'X-Result': 'true' });
      return [result, text];
    }
    await this.signal('messages', { messages: msgs, result });
    const renderSuccess = kw.renderSuccess ?? this.options.renderSuccess;
    const html = await this.render(data, msgs, undefined, !renderSuccess, result);
    if (ajax) this.sendResponse(html, { 'X-Result': 'true' });
    return [result, html];
  }

  /**
   * Sets the response to send as is (ends normal page rendering for the host).
   *
   * @example
   * this.sendResponse('<p>Done</p>', { 'X-Result': 'true' });
   */
  protected sendResponse(body: string, headers: Record<string, string> = {}, status = 200): void {
    this.response = { status, body, headers: { 'Content-Type': 'text/html; charset=utf-8', ...headers } };
  }

  /**
   * Redirects: a 302 with `Location`, or for ajax requests a 200 with `X-Relocate` and the JSON
   * body `{location, messages, refresh}`. The messages are in `response.messages` for flashing.
   *
   * @example
   * this.redirect('/done', ['OK. Data saved.']);
   */
  protected redirect(url: string, messages: string[]): void {
    if (messages.length) this.view?.flash?.(messages);
    if (isXhr(this.request)) {
      this.response = {
        status: 200,
        headers: { 'X-Relocate': url, 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ location: url, messages, refresh: true }),
        messages,
        location: url,
      };
    } else this.response = { status: 302, headers: { Location: url }, body: '', messages, location: url };
  }

  async #renderInput(
    data: Readonly<Record<string, unknown>>,
    errors: readonly FieldError[] | undefined,
  ): Promise<RenderInput> {
    const fields = await this.compiled();
    return {
      options: this.options,
      layout: this.widget,
      t: this.t,
      fields,
      actions: this.getActions(),
      data,
      errors: errors ?? [],
      live: this.options.liveValidation
        ? liveSpec(fields, this.options.formid, this.t, {
            invalidClass: this.widget.classes.invalid,
            errorClass: this.widget.classes.error,
          })
        : undefined,
    };
  }

  /**
   * The form html: messages, error summary, fields, buttons. `messagesOnly` renders the messages
   * only. Fires `render(data)` before rendering the form.
   *
   * @example
   * const html = await form.render({ name: 'Ada' }, ['Welcome']);
   */
  async render(
    data: Readonly<Record<string, unknown>>,
    msgs?: string[],
    errors?: FieldError[],
    messagesOnly = false,
    result?: unknown,
  ): Promise<string> {
    const warning = Boolean(errors?.length) || result === false;
    const messages = renderMessages(msgs, warning, this.widget, this.t);
    if (messagesOnly) return messages;
    await this.signal('render', { data });
    const shown = errors?.length ? await this.#keepUploads(data) : data;
    return renderForm(await this.#renderInput(shown, errors), messages) + this.renderAfterForm();
  }

  /**
   * The data to show again after errors with each new upload (at any depth) kept in the stash,
   * so the page carries its token instead of asking for the file again (deform's tmpstore).
   */
  async #keepUploads(data: Readonly<Record<string, unknown>>): Promise<Readonly<Record<string, unknown>>> {
    const stash = this.options.uploadStash ?? defaultUploadStash;
    return mapFiles(this.getFields(), data, async (file) =>
      file.tempfile ? { ...file, kept: file.kept ?? (await stash.keep(file)) } : file,
    );
  }

  /** Html rendered after the form (not with `messagesOnly`); `JsonSequenceForm` lists its items here. */
  protected renderAfterForm(): string {
    return '';
  }

  /**
   * The fields and buttons without form tag and frame; messages in front.
   *
   * @example
   * const body = await form.renderBody(data);
   */
  async renderBody(
    data: Readonly<Record<string, unknown>>,
    msgs?: string[],
    errors?: FieldError[],
    result?: unknown,
  ): Promise<string> {
    const input = await this.#renderInput(data, errors);
    const warning = Boolean(errors?.length) || result === false;
    return renderMessages(msgs, warning, this.widget, this.t) + renderItems(input) + renderActions(input);
  }

  /**
   * `<link>` and `<script>` tags for the page head: the form's script and styles plus what its
   * widgets need, css first, without duplicates and without names in `ignore`.
   *
   * @example
   * const head = await form.htmlHead(); // '<link href="/forms-static/roost-forms.css" ...>\r\n<script ...></script>'
   */
  async htmlHead(ignore: readonly string[] = ['jquery.js', 'jquery-ui.js']): Promise<string> {
    const fields = await this.compiled();
    const reqs: WidgetRequirements[] = [
      formRequirements,
      ...fields.flatMap((c) => (c.widget.requirements ? [c.widget.requirements] : [])),
    ];
    const staticUrl = this.options.staticUrl ?? this.view?.staticUrl?.bind(this.view) ?? defaultStaticUrl;
    return headTags(reqs, ignore, staticUrl);
  }
}
