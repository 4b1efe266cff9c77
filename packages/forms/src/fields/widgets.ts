import { fieldDatatype, staticItems, type FieldConf, type ListItem } from '../conf/field-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import { checkboxChoice, radioChoice, selectInput, singleCheckbox } from './choice-widgets.js';
import { fileUpload } from './file-widget.js';
import { groupWidgets } from './group-widgets.js';
import { checkedPasswordInput, hiddenInput, passwordInput, textArea, textInput } from './text-widgets.js';
import { defaultWidgets, type Widget, type WidgetRegistry } from './widget.js';

const builtIn: Record<string, Widget> = {
  text: textInput('text'),
  number: textInput('number', { step: '1', inputmode: 'numeric' }),
  float: textInput('number', { step: 'any', inputmode: 'decimal' }),
  email: textInput('email'),
  url: textInput('url'),
  date: textInput('date'),
  time: textInput('time', { step: '1' }),
  datetime: textInput('datetime-local', { step: '1' }),
  textarea: textArea(),
  code: textArea(true),
  hidden: hiddenInput,
  password: passwordInput,
  checkedpassword: checkedPasswordInput,
  select: selectInput(false),
  multiselect: selectInput(true),
  radio: radioChoice,
  checkbox: checkboxChoice,
  singlecheckbox: singleCheckbox,
  file: fileUpload,
};
const groups = groupWidgets((field) => resolveWidget(field, staticItems(field), defaultWidgets));
builtIn.group = groups.group;
builtIn.repeat = groups.repeat;
for (const [name, widget] of Object.entries(builtIn)) defaultWidgets.set(name, widget);

const byDatatype: Readonly<Record<string, string>> = {
  string: 'text',
  text: 'textarea',
  number: 'number',
  float: 'float',
  bool: 'radio',
  date: 'date',
  time: 'time',
  datetime: 'datetime',
  list: 'select',
  radio: 'radio',
  multilist: 'multiselect',
  checkbox: 'checkbox',
  email: 'email',
  url: 'url',
  password: 'checkedpassword',
  json: 'code',
  lines: 'textarea',
  file: 'file',
  hidden: 'hidden',
  group: 'group',
  repeat: 'repeat',
};

/**
 * The name of the default widget of a field: by datatype, `hidden` for hidden fields, `password`
 * for `settings.single` passwords, `singlecheckbox` for a checkbox without list items.
 *
 * @example
 * defaultWidgetName({ id: 'x', datatype: 'list' }, []); // 'select'
 */
export function defaultWidgetName(field: FieldConf, items: readonly ListItem[]): string {
  const dt = fieldDatatype(field);
  if (field.hidden) return 'hidden';
  if (dt === 'password' && field.settings?.single) return 'password';
  if (dt === 'checkbox' && items.length === 0 && !field.listItems) return 'singlecheckbox';
  return byDatatype[dt] ?? 'text';
}

/**
 * The widget object of a field: `field.widget` (a name or an object), else the datatype's default.
 *
 * @example
 * resolveWidget({ id: 'x', widget: 'textarea' }, [], defaultWidgets);
 */
export function resolveWidget(
  field: FieldConf,
  items: readonly ListItem[],
  registry: WidgetRegistry,
  preferred?: string | Widget,
): Widget {
  const w = preferred ?? (field.hidden ? 'hidden' : field.widget) ?? defaultWidgetName(field, items);
  if (typeof w !== 'string') return w;
  const found = registry.get(w) ?? defaultWidgets.get(w);
  if (!found) throw new ConfigurationError(`Unknown widget "${w}" of field "${field.id}"`);
  return found;
}

/** The list items of a `bool` field without its own: Yes / No. */
export const boolItems: readonly ListItem[] = [
  { id: 'true', name: 'Yes' },
  { id: 'false', name: 'No' },
];
