import type { FieldConf, ListItem } from '../conf/field-conf.js';
import type { FormValues } from '../request/form-request.js';
import type { FormClasses } from '../render/form-classes.js';
import type { Translate } from '../validate/messages.js';

/**
 * Returned by `Widget.read` when the input itself is invalid (e.g. a password confirmation mismatch).
 *
 * @example
 * read: (field, values) => (values[field.id] === 'x' ? new WidgetInvalid('Invalid value', 'x') : values[field.id])
 */
export class WidgetInvalid {
  constructor(
    readonly msgid: string,
    readonly value: unknown,
  ) {}
}

/** Everything a widget needs to render its input(s). */
export interface WidgetRenderInput {
  field: FieldConf;
  /** Element id of the (first) input. */
  oid: string;
  /** The value to show: a request value after a failed validation, else the app value. */
  value: unknown;
  items: readonly ListItem[];
  /** True when the field has errors (adds `aria-invalid` and the invalid class). */
  invalid: boolean;
  /** Request names of inputs inside a group or repeat that failed (`FieldError.inputs`): `aria-invalid`. */
  invalidInputs?: ReadonlySet<string>;
  /** Ids for `aria-describedby` (help text, errors), or undefined. */
  describedBy: string | undefined;
  classes: FormClasses;
  t: Translate;
}

/** Static assets a widget needs in the page head, by short name (resolved with `staticUrl`). */
export interface WidgetRequirements {
  js?: string[];
  css?: string[];
}

/**
 * A widget reads its value from the request values and renders its input(s). Register custom
 * widgets by name with `registerWidget` and use them with `FieldConf.widget`.
 *
 * @example
 * registerWidget('color', {
 *   read: (f, v) => textValue(v[f.id]),
 *   render: (i) => `<input type="color" id="${i.oid}" name="${i.field.id}">`,
 * });
 */
export interface Widget {
  /** Renders without label (hidden input). */
  readonly hidden?: boolean;
  /** Renders several inputs (radio, checkboxes); the label names the group instead of one input. */
  readonly group?: boolean;
  readonly requirements?: WidgetRequirements;
  /** The widget value from the request values; `undefined` when the field was not submitted. */
  read(field: FieldConf, values: FormValues): unknown;
  render(input: WidgetRenderInput): string;
}

/** Widgets by name. */
export type WidgetRegistry = Map<string, Widget>;

/**
 * The process-wide default registry, filled with the built-in widgets by `fields/widgets.ts`.
 *
 * @example
 * defaultWidgets.get('textarea');
 */
export const defaultWidgets: WidgetRegistry = new Map();

/**
 * Registers a widget under a name in the default registry (or in the given one).
 *
 * @example
 * registerWidget('stars', starsWidget); const field: FieldConf = { id: 'rating', datatype: 'number', widget: 'stars' };
 */
export function registerWidget(name: string, widget: Widget, registry: WidgetRegistry = defaultWidgets): void {
  registry.set(name, widget);
}

/**
 * The first string of a request value, or undefined.
 *
 * @example
 * textValue(['a', 'b']); // 'a'
 */
export function textValue(value: unknown): string | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  if (typeof one === 'string') return one;
  if (typeof one === 'number' || typeof one === 'boolean') return String(one);
  return undefined;
}

/**
 * A request value as a list of strings.
 *
 * @example
 * listValue('a'); // ['a']
 */
export function listValue(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
}
