import type { StandardSchemaV1 } from '../validate/standard-schema.js';
import type { Widget } from '../fields/widget.js';
import type { FieldNode } from '../validate/field-adapter.js';
import type { Translate } from '../validate/messages.js';
import type { FieldRule } from '../rules/rules.js';

/**
 * The datatypes the library knows. Custom datatypes are not registered; give a field a
 * `schema` (any Standard Schema) and a `widget` instead.
 */
export type Datatype =
  | 'string'
  | 'text'
  | 'number'
  | 'float'
  | 'bool'
  | 'datetime'
  | 'date'
  | 'time'
  | 'list'
  | 'radio'
  | 'multilist'
  | 'checkbox'
  | 'email'
  | 'url'
  | 'password'
  | 'json'
  | 'lines'
  | 'file'
  | 'hidden'
  | 'group'
  | 'repeat';

/**
 * One entry of a `list`, `radio`, `multilist` or `checkbox` field. With `controlset`, the
 * `fields` of an item are shown only while the item is selected.
 *
 * @example
 * const item: ListItem = {
 *   id: 'post',
 *   name: 'By post',
 *   fields: [{ id: 'street', datatype: 'string', name: 'Street' }],
 * };
 */
export interface ListItem {
  id: string | number;
  name: string;
  /** Fields controlled by this item (controlset). Their data is top-level form data. */
  fields?: readonly FieldConf[];
  /** The name is trusted HTML and rendered without escaping. */
  html?: boolean;
}

/**
 * Loads list items on demand, e.g. from the database. Called as `(field, context, user)` and may
 * be async.
 *
 * @example
 * const groups: ListItemsCallback = async (field, context, user) =>
 *   db.groups().map((g) => ({ id: g.id, name: g.title }));
 */
export type ListItemsCallback = (
  field: FieldConf,
  context: unknown,
  user: unknown,
) => readonly ListItem[] | Promise<readonly ListItem[]>;

/**
 * What a custom validator receives besides the converted value.
 */
export interface ValidatorContext {
  field: FieldConf;
  /** The form running the validation (for database look-ups through `form.context` or `form.app`). */
  form: unknown;
  /** All raw values of the request, e.g. to compare two fields. */
  values: Readonly<Record<string, unknown>>;
  /** Translates a message id with `${name}` placeholders. */
  t: Translate;
}

/**
 * A custom validator. It may be async (a look-up in the database is the normal case). Fail by
 * throwing a `ValidationError` or by returning a message; return nothing to pass.
 *
 * @example
 * const unique: FieldValidator = async (value) => {
 *   if (await users.exists(String(value))) throw new ValidationError('Name taken');
 * };
 */
export type FieldValidator = (
  value: unknown,
  ctx: ValidatorContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: a validator finding nothing wrong may return nothing (public API)
) => void | string | undefined | Promise<void | string | undefined>;

/**
 * Configuration of one form field. Plain data apart from the callbacks, so it can live in an
 * object type's configuration.
 *
 * @example
 * const email: FieldConf = {
 *   id: 'email',
 *   name: 'E-mail',
 *   datatype: 'email',
 *   required: true,
 *   description: 'We never share it.',
 * };
 */
export interface FieldConf {
  /** Field id: request parameter name and data key. */
  id: string;
  /** The label. */
  name?: string;
  /** Picks the conversion and the default widget. Defaults to `string`. */
  datatype?: Datatype | (string & {});
  /** Maximum length (text types) or bytes (`file`); 0 or absent means no limit. Numeric strings are accepted. */
  size?: number | string;
  /**
   * Least length of a text value (a password's defaults to `settings.minLength`, else 5).
   * Like `pattern`, `min`, `max` and `step`, it is checked on the server and rendered as the
   * input's attribute of the same name, so the browser checks it first (validate/constraints.ts).
   */
  minLength?: number;
  /** A regular expression the whole text must match (the browser's `pattern`, flag `v`). */
  pattern?: string;
  /** Least value: a number for `number`/`float`, the datatype's own form for `date`, `time`, `datetime`. */
  min?: number | string;
  /** Greatest value, as `min`. */
  max?: number | string;
  /** Numbers: the value is `min` (or 0) plus a whole multiple of `step`; `any` allows every value. */
  step?: number | 'any';
  /**
   * The fields of a `group` (its value is an object of them) or of each item of a `repeat` (a
   * list of such objects), rendered inline (fields/group-widgets.ts).
   */
  fields?: readonly FieldConf[];
  /** A `repeat`'s least and greatest number of items. */
  minItems?: number;
  maxItems?: number;
  required?: boolean | 0 | 1;
  /** Not used by forms (a search index concern); kept so type configurations can be shared. */
  fulltext?: boolean | 0 | 1;
  /** Default value for `loadDefaultData`. */
  default?: unknown;
  /** Help text shown beside the input and referenced by `aria-describedby`. */
  description?: string;
  /** `name` and `description` are trusted HTML and rendered without escaping. */
  html?: boolean;
  listItems?: readonly ListItem[] | ListItemsCallback;
  /** Name of a registered widget, or a widget object. */
  widget?: string | Widget;
  /**
   * Widget settings. Known keys: `controlset` (show item fields conditionally), `addempty`
   * (empty first option), `placeholder`, `rows`, `css_class`, `single` (one password input),
   * `update` (do not show a stored password), `minLength` (password), `accept` (file), `preface`
   * (html before the widget in one-column layout), `autocomplete`; `controlledBy` is set by the
   * form on a controlset item's field (rules/controlset-rules.ts).
   */
  settings?: Readonly<Record<string, unknown>>;
  validator?: FieldValidator;
  /** A custom schema (zod, valibot, ArkType, ...) used instead of the datatype's conversion. */
  schema?: StandardSchemaV1;
  /** A prebuilt node (conversion + widget), used as is unless the factory is forced. */
  node?: FieldNode;
  /** Readonly fields are removed by `getFields()` and never rendered or validated. */
  readonly?: boolean;
  /** Rendered as `<input type="hidden">`; the datatype's conversion still applies. */
  hidden?: boolean;
  /**
   * Rules that show, hide, enable, disable or require this field from the value of a field beside
   * it (JSON Forms' shape; rules/rules.ts). A hidden or disabled field is not validated and not
   * in the data.
   */
  rule?: FieldRule | readonly FieldRule[];
}

/**
 * `size` as a number; 0 means unlimited.
 *
 * @example
 * fieldSize({ id: 'title', size: '255' }); // 255
 */
export function fieldSize(field: FieldConf): number {
  const n = typeof field.size === 'string' ? Number.parseInt(field.size, 10) : (field.size ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * The field's datatype with the `string` default.
 *
 * @example
 * fieldDatatype({ id: 'title' }); // 'string'
 */
export function fieldDatatype(field: FieldConf): string {
  return field.datatype || 'string';
}

/**
 * A field's own list items, without loading: a callback's items need a request and a form
 * (`Form.loadListItems`), so outside a form (a group's fields, a JSON Schema) they count as none.
 *
 * @example
 * staticItems({ id: 'size', listItems: [{ id: 's', name: 'S' }] }); // [{ id: 's', name: 'S' }]
 */
export function staticItems(field: FieldConf): readonly ListItem[] {
  return Array.isArray(field.listItems) ? field.listItems : [];
}
