import { skipsValidation, type ActionConf } from '../conf/action-conf.js';
import type { FieldConf } from '../conf/field-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import type { FormOptions } from '../form/form-options.js';
import type { CompiledField } from '../form/form.js';
import type { Translate } from '../validate/messages.js';
import type { FieldError } from '../validate/validation-error.js';
import { attrs, escapeHtml, textOrHtml } from './html.js';
import { actionKey, actionTemplates, itemTemplates, underWidgets, type FormLayout } from './templates.js';
import { openWithoutScript, ruleBox } from '../rules/rule-box.js';
import type { LiveSpec } from '../live/live-spec.js';
import { ruledField, ruleState } from '../rules/rules.js';

/** What the renderer needs from a form. */
export interface RenderInput {
  options: FormOptions;
  layout: FormLayout;
  t: Translate;
  fields: readonly CompiledField[];
  actions: readonly ActionConf[];
  data: Readonly<Record<string, unknown>>;
  errors: readonly FieldError[];
  /** Live validation's spec (live/live-spec.ts), when the option is on. */
  live?: LiveSpec;
}

/** Element id of a field's input. */
const fieldOid = (formid: string, fieldId: string): string => `${formid}-${fieldId}`;

/**
 * The messages block: nothing without messages, else one `<div>` per (translated, escaped)
 * message in a success or warning alert with `role="status"` / `role="alert"`.
 *
 * @example
 * renderMessages(['OK. Data saved.'], false, defaultClasses, createTranslator());
 */
export function renderMessages(
  msgs: readonly string[] | undefined,
  warning: boolean,
  layout: FormLayout,
  t: Translate,
): string {
  if (!msgs?.length) return '';
  const a = attrs({
    class: warning ? layout.classes.alertWarning : layout.classes.alertSuccess,
    role: warning ? 'alert' : 'status',
  });
  return `<div${a}>${msgs.map((m) => `<div>${escapeHtml(t(m))}</div>`).join('')}</div>`;
}

function errorSummary(input: RenderInput): string {
  if (!input.errors.length) return '';
  const { t, options } = input;
  const formLevel = input.errors.filter((e) => !e.field).flatMap((e) => e.messages);
  const items = input.errors
    .filter((e) => e.field)
    .map((e) => {
      const f = input.fields.find((c) => c.field.id === e.field)?.field;
      const label = f ? t(f.name ?? f.id) : e.field;
      const a = attrs({
        href: `#${fieldOid(options.formid, e.field)}`,
        class: input.layout.classes.errorSummaryLink || undefined,
      });
      return `<li><a${a}>${escapeHtml(label)}: ` + `${escapeHtml(e.messages.join('; '))}</a></li>`;
    })
    .join('');
  // The heading level fits the host's outline (`widget.settings.errorSummaryHeading`, h2 to h6).
  const level = input.layout.settings.errorSummaryHeading;
  // h2 by default: under the page's h1, the heading order holds (an h4 skipped two levels).
  const heading = typeof level === 'string' && /^h[2-6]$/.test(level) ? level : 'h2';
  const box = attrs({
    id: `${options.formid}-errors`,
    class: input.layout.classes.errorSummary,
    role: 'alert',
    'data-roost-errors': true,
    tabindex: '-1',
  });
  return (
    `<div${box}>` +
    `<${heading}>${escapeHtml(t('There was a problem with your submission'))}</${heading}>` +
    `<div>${escapeHtml(t('Errors have been highlighted below'))}</div>` +
    formLevel.map((m) => `<div class="errorMsg">${escapeHtml(m)}</div>`).join('') +
    (items ? `<ul>${items}</ul>` : '') +
    `</div>`
  );
}

/** Field items and the action buttons, without the form tag. */
export function renderItems(input: RenderInput): string {
  const { options, layout, t } = input;
  const template = itemTemplates[layout.item_template];
  if (!template) throw new ConfigurationError(`Unknown item template "${layout.item_template}"`);
  const invalidInputs = new Set(input.errors.flatMap((e) => e.inputs ?? []));
  const all = input.fields.map((c) => c.field);
  return input.fields
    .map(({ field: configured, widget, items }) => {
      // Rules (rules/rules.ts) decide from the data shown whether the field shows, and requires it.
      const valueAt = (id: string) => input.data[id];
      const state = ruleState(configured, all, valueAt);
      const field = ruledField(configured, state);
      const oid = fieldOid(options.formid, field.id);
      const errors = input.errors.filter((e) => e.field === field.id).flatMap((e) => e.messages);
      const help = field.description
        ? textOrHtml(field.html ? field.description : t(field.description), field.html)
        : '';
      const describedBy =
        [errors.length ? `${oid}-error` : '', help ? `${oid}-help` : ''].filter(Boolean).join(' ') || undefined;
      const widgetHtml = widget.render({
        // A controlset's field shows without a script, so the browser must not require it (rule-box.ts).
        field: openWithoutScript(configured) && field.required ? { ...field, required: false } : field,
        oid,
        value: input.data[field.id],
        items,
        invalid: errors.length > 0,
        invalidInputs,
        describedBy,
        classes: layout.classes,
        t,
      });
      const item = template({
        field,
        oid,
        widgetHtml,
        hidden: Boolean(widget.hidden),
        group: Boolean(widget.group),
        label: field.html ? (field.name ?? field.id) : t(field.name ?? field.id),
        help,
        errors,
        layout,
        live: Boolean(input.live?.fields[configured.id]),
      });
      return ruleBox(item, {
        field: configured,
        fields: all,
        prefix: '',
        oid,
        state,
        classes: layout.classes,
        valueAt,
      });
    })
    .join('');
}

/** The action buttons through the configured action template. */
export function renderActions(input: Pick<RenderInput, 'options' | 'layout' | 't' | 'actions'>): string {
  const template = actionTemplates[input.layout.action_template];
  if (!template) throw new ConfigurationError(`Unknown action template "${input.layout.action_template}"`);
  return template({
    formid: input.options.formid,
    postfix: input.options.actionPostfix,
    actions: [...input.actions],
    layout: input.layout,
    t: input.t,
  });
}

/**
 * The `hiddenValues` option as hidden inputs (escaped).
 *
 * @example
 * hiddenValueInputs({ csrf: 'abc' }); // '<input type="hidden" name="csrf" value="abc">'
 */
export function hiddenValueInputs(values: Readonly<Record<string, string>>): string {
  return Object.entries(values)
    .map(([name, value]) => `<input${attrs({ type: 'hidden', name, value })}>`)
    .join('');
}

/** Whether any field, at any depth, is a repeat (its Add and Remove are submit buttons). */
const hasRepeat = (fields: readonly FieldConf[]): boolean =>
  fields.some((f) => f.datatype === 'repeat' || (f.datatype === 'group' && hasRepeat(f.fields ?? [])));

/**
 * Enter in a text field submits with the form's first submit button (the HTML standard's implicit
 * submission). A repeat's Add and Remove (fields/group-widgets.ts) come before the action buttons,
 * so a form with a repeat starts with a hidden copy of its default action's button: the first
 * shown action that validates. Without one, the copy is disabled and Enter submits nothing.
 */
function defaultSubmit(input: RenderInput): string {
  if (!hasRepeat(input.fields.map((c) => c.field))) return '';
  const action = input.actions.find((a) => !a.hidden && !skipsValidation(a));
  const key = action ? actionKey(action, input.options.actionPostfix) : undefined;
  const a = attrs({
    type: 'submit',
    name: key,
    value: key,
    hidden: true,
    tabindex: '-1',
    disabled: !action,
    'data-roost-default': true,
  });
  return `<button${a}>${escapeHtml(input.t(action?.name ?? action?.id ?? 'Submit'))}</button>`;
}

/** The whole form: container, messages, form tag, error summary, items, footer, progress bar, buttons. */
function progressBarAttrs(input: RenderInput): string {
  return attrs({
    class: input.layout.classes.progressBar,
    role: 'progressbar',
    'aria-label': input.t('Upload progress'),
    'aria-valuemin': 0,
    'aria-valuemax': 100,
    'aria-valuenow': 0,
  });
}

export function renderForm(input: RenderInput, messagesHtml: string): string {
  const { options, layout } = input;
  const get = options.method.toUpperCase() === 'GET';
  const anchor = options.anchor ? (options.anchor.startsWith('#') ? options.anchor : `#${options.anchor}`) : '';
  const formAttrs = attrs({
    id: options.formid,
    action: options.action || anchor ? `${options.action}${anchor}` : undefined,
    method: get ? 'get' : 'post',
    class: options.css_class,
    enctype: get ? undefined : 'multipart/form-data',
    novalidate: options.novalidate,
    autocomplete: options.autofill ? 'off' : undefined,
    'data-roost-form': true,
    'data-ajax': options.use_ajax ? 'true' : undefined,
    'data-progress': options.use_ajax ? options.uploadProgressBar : undefined,
    'data-roost-live': input.live ? JSON.stringify(input.live) : undefined,
  });
  const bar =
    `<div${attrs({ class: layout.classes.progress, 'data-roost-progress': true, hidden: true })}>` +
    `<div${progressBarAttrs(input)}></div></div>`;
  // In the three-column layout the bar sits in the grid, under the inputs like the buttons.
  const progress =
    options.use_ajax && options.uploadProgressBar !== 'none'
      ? layout.item_template === 'field'
        ? underWidgets(layout, bar)
        : bar
      : '';
  const footer = options.footer ? `<div${attrs({ class: layout.classes.footer })}>${options.footer}</div>` : '';
  return (
    `<div${attrs({ id: `${options.formid}-container`, class: 'roost-form', 'data-roost-form-container': true })}>` +
    messagesHtml +
    `<form${formAttrs}>${defaultSubmit(input)}${hiddenValueInputs(options.hiddenValues)}` +
    `${errorSummary(input)}${renderItems(input)}` +
    `${footer}${progress}${renderActions(input)}</form>` +
    `</div>`
  );
}
