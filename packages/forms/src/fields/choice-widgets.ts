import type { ListItem } from '../conf/field-conf.js';
import { attrs, cls, escapeHtml, textOrHtml } from '../render/html.js';
import { inputAttrs } from './input-attrs.js';
import { listValue, textValue, type Widget, type WidgetRenderInput } from './widget.js';

const selected = (value: unknown): Set<string> =>
  new Set(listValue(value === true ? 'true' : value === false ? 'false' : value));

/**
 * `<select>`, single or `multiple`. With `settings.controlset` it carries the hook class; its
 * items' fields have SHOW rules on it (rules/controlset-rules.ts), which the rules' script
 * follows. `settings.addempty` prepends an empty option.
 *
 * @example
 * registerWidget('tags', selectInput(true));
 */
export function selectInput(multiple: boolean): Widget {
  return {
    read: (field, values) => {
      const raw = values[field.id];
      if (raw === undefined) return multiple ? [] : undefined;
      if (multiple) return listValue(raw);
      // Several values for a single select are passed on, so the conversion refuses them.
      return Array.isArray(raw) && raw.length > 1 ? listValue(raw) : textValue(raw);
    },
    render: (input) => {
      const chosen = selected(input.value);
      // The hook class stays for styling; the rules show the items' fields (rules/controlset-rules.ts).
      const hook = Boolean(input.field.settings?.controlset);
      const s = input.field.settings ?? {};
      const items: ListItem[] = s.addempty && !multiple ? [{ id: '', name: '' }, ...input.items] : [...input.items];
      const options = items
        .map((item) => {
          const id = String(item.id);
          const a = attrs({ value: id, selected: chosen.has(id) });
          return `<option${a}>${escapeHtml(item.name)}</option>`;
        })
        .join('');
      const extra = {
        multiple,
        size: multiple ? Math.min(Math.max(items.length, 2), 8) : undefined,
      };
      const a = inputAttrs({ ...input, classes: { ...input.classes, input: input.classes.select } }, extra);
      const withHook = hook
        ? a.replace(/ class="([^"]*)"/, (_m, c: string) => ` class="${cls(c, input.classes.controlset)}"`)
        : a;
      return `<select${withHook}>${options}</select>`;
    },
  };
}

function group(type: 'radio' | 'checkbox', input: WidgetRenderInput): string {
  const chosen = selected(input.value);
  const c = input.classes;
  const inputs = input.items
    .map((item, i) => {
      const id = `${input.oid}-${i}`;
      const a = attrs({
        type,
        id,
        name: input.field.id,
        value: String(item.id),
        class: cls(c.checkInput, input.invalid && c.invalid),
        checked: chosen.has(String(item.id)),
        required: type === 'radio' && Boolean(input.field.required),
      });
      return (
        `<div class="${escapeHtml(c.check)}"><input${a}>` +
        `<label${attrs({ class: c.checkLabel, for: id })}>${textOrHtml(item.name, item.html)}</label></div>`
      );
    })
    .join('');
  const g = attrs({
    id: input.oid,
    role: type === 'radio' ? 'radiogroup' : 'group',
    'aria-labelledby': `${input.oid}-label`,
    'aria-invalid': input.invalid ? 'true' : undefined,
    'aria-describedby': input.describedBy,
    'aria-required': type === 'radio' && input.field.required ? 'true' : undefined,
  });
  return `<div${g}>${inputs}</div>`;
}

/**
 * Radio buttons, one per list item (also `bool`: Yes/No).
 *
 * @example
 * const field: FieldConf = { id: 'size', datatype: 'list', widget: 'radio', listItems: [{ id: 's', name: 'S' }] };
 */
export const radioChoice: Widget = {
  group: true,
  read: (field, values) => textValue(values[field.id]),
  render: (input) => group('radio', input),
};

/**
 * Checkboxes, one per list item, all with the field's name. Nothing checked reads as `[]`.
 *
 * @example
 * const field: FieldConf = { id: 'tags', datatype: 'multilist', widget: 'checkbox', listItems };
 */
export const checkboxChoice: Widget = {
  group: true,
  read: (field, values) => listValue(values[field.id]),
  render: (input) => group('checkbox', input),
};

/**
 * One checkbox for a boolean; unchecked reads as `false`.
 *
 * @example
 * const field: FieldConf = { id: 'agree', datatype: 'checkbox', name: 'I accept the terms', required: true };
 */
export const singleCheckbox: Widget = {
  read: (field, values) => textValue(values[field.id]) ?? 'false',
  render: (input) => {
    const checked = selected(input.value).has('true');
    const a = inputAttrs(input, { type: 'checkbox', value: 'true', checked });
    const checkClass = cls(input.classes.checkInput, input.invalid && input.classes.invalid);
    const box = `<input${a.replace(/ class="([^"]*)"/, () => ` class="${escapeHtml(checkClass)}"`)}>`;
    return input.classes.singleCheck ? `<div${attrs({ class: input.classes.singleCheck })}>${box}</div>` : box;
  },
};
