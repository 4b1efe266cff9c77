import { attrs, cls, type AttrValue } from '../render/html.js';
import type { WidgetRenderInput } from './widget.js';

/**
 * The common attributes of an input: id, name, class, required, aria wiring, and the field's
 * `placeholder`/`autocomplete`/`css_class` settings.
 *
 * @example
 * `<input${inputAttrs(input, { type: 'text', value: 'x' })}>`
 */
export function inputAttrs(
  input: WidgetRenderInput,
  extra: Readonly<Record<string, AttrValue>> = {},
  name = input.field.id,
): string {
  const s = input.field.settings ?? {};
  return attrs({
    id: input.oid,
    name,
    class: cls(
      input.classes.input,
      typeof s.css_class === 'string' && s.css_class,
      input.invalid && input.classes.invalid,
    ),
    placeholder: typeof s.placeholder === 'string' ? s.placeholder : undefined,
    autocomplete: typeof s.autocomplete === 'string' ? s.autocomplete : undefined,
    required: Boolean(input.field.required),
    'aria-invalid': input.invalid ? 'true' : undefined,
    'aria-describedby': input.describedBy,
    ...extra,
  });
}

/**
 * A value as the text an input shows: strings as is, lists joined by line breaks, json
 * pretty-printed, dates in ISO form.
 *
 * @example
 * displayText(['a', 'b']); // 'a\nb'
 */
export function displayText(value: unknown, json = false): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (json) return JSON.stringify(value, null, 2);
  if (Array.isArray(value)) return value.map((v) => displayText(v)).join('\n');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
