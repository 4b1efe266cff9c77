import { attrs, escapeHtml } from '../render/html.js';
import { constraintAttrs } from '../validate/constraints.js';
import { displayText, inputAttrs } from './input-attrs.js';
import { textValue, WidgetInvalid, type Widget } from './widget.js';

/**
 * A single-line `<input>` of the given type. Request values are trimmed.
 *
 * @example
 * registerWidget('search', textInput('search'));
 */
export function textInput(type: string, extra: Readonly<Record<string, string>> = {}): Widget {
  return {
    read: (field, values) => textValue(values[field.id])?.trim(),
    render: (input) => {
      let value = displayText(input.value);
      if (type === 'datetime-local') value = value.replace(' ', 'T').replace(/(T\d\d:\d\d:\d\d).*$/, '$1');
      const limits = constraintAttrs(input.field, type);
      return `<input${inputAttrs(input, { type, value, ...extra, ...limits })}>`;
    },
  };
}

/**
 * `<textarea>`; `settings.rows` sets its height. `json` shows structured values as JSON.
 *
 * @example
 * registerWidget('code', textArea(true));
 */
export function textArea(json = false): Widget {
  return {
    read: (field, values) => textValue(values[field.id]),
    render: (input) => {
      const rows = Number(input.field.settings?.rows ?? 5);
      const a = inputAttrs(input, { rows, ...(json ? {} : constraintAttrs(input.field, 'textarea')) });
      return `<textarea${a}>${escapeHtml(displayText(input.value, json))}</textarea>`;
    },
  };
}

/**
 * A hidden input; rendered without label.
 *
 * @example
 * const field: FieldConf = { id: 'ref', datatype: 'string', hidden: true };
 */
export const hiddenInput: Widget = {
  hidden: true,
  read: (field, values) => textValue(values[field.id])?.trim(),
  render: (input) =>
    `<input${attrs({ type: 'hidden', id: input.oid, name: input.field.id, value: displayText(input.value) })}>`,
};

/**
 * One password input; the stored password is never shown.
 *
 * @example
 * const field: FieldConf = { id: 'pw', datatype: 'password', settings: { single: true } };
 */
export const passwordInput: Widget = {
  read: (field, values) => textValue(values[field.id]),
  render: (input) => {
    const limits = constraintAttrs(input.field, 'password');
    return `<input${inputAttrs(input, { type: 'password', value: '', placeholder: undefined, ...limits })}>`;
  },
};

/**
 * Password plus confirmation (`<id>` and `<id>-confirm`); a mismatch fails with "Password did not
 * match confirm".
 *
 * @example
 * const field: FieldConf = { id: 'pw', datatype: 'password', required: true };
 */
export const checkedPasswordInput: Widget = {
  read: (field, values) => {
    const pw = textValue(values[field.id]);
    const confirm = textValue(values[`${field.id}-confirm`]);
    if (pw === undefined && confirm === undefined) return undefined;
    if ((pw ?? '') !== (confirm ?? '')) return new WidgetInvalid('Password did not match confirm', pw);
    return pw;
  },
  render: (input) => {
    const update = Boolean(input.field.settings?.update);
    const first = inputAttrs(input, {
      type: 'password',
      value: '',
      placeholder: input.t(update ? '(unchanged)' : 'Password'),
      autocomplete: 'new-password',
      ...constraintAttrs(input.field, 'password'),
    });
    const confirmId = `${input.oid}-confirm`;
    const second = inputAttrs(
      { ...input, oid: confirmId },
      { type: 'password', value: '', placeholder: input.t('Confirm Password'), autocomplete: 'new-password' },
      `${input.field.id}-confirm`,
    );
    // A visible label, not only a placeholder: a placeholder is gone once typing starts.
    const labelAttrs = attrs({ for: confirmId, class: input.classes.confirmLabel });
    const label = `<label${labelAttrs}>${escapeHtml(input.t('Confirm Password'))}</label>`;
    return `<input${first}> ${label}<input${second}>`;
  },
};
