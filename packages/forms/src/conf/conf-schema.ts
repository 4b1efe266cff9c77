/* One schema each of a field's, a list item's, an action's and a subset's configuration (issue
   43, item 7): a key the library does not know (`requried`, a form option given to a field) or a
   value of the wrong kind throws a ConfigurationError naming the field and the key, where it was
   ignored before. Form options have theirs in form/options-schema.ts. */
import { z } from 'zod';
import { ConfigurationError } from './configuration-error.js';
import type { ActionConf } from './action-conf.js';
import type { FieldConf, ListItem } from './field-conf.js';
import type { Subset } from './subset.js';

const callable = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'a function');
const flag = z.union([z.boolean(), z.literal(0), z.literal(1)]);
const count = z.number().int().min(0);

const listItemSchema = z.strictObject({
  id: z.union([z.string(), z.number()]),
  name: z.string(),
  fields: z.array(z.looseObject({ id: z.string() })).optional(),
  html: z.boolean().optional(),
} satisfies Record<keyof ListItem, z.ZodType>);

const fieldSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().optional(),
  datatype: z.string().optional(),
  size: z.union([z.number(), z.string()]).optional(),
  // The constraints' values are read by validate/constraints.ts, whose messages say more.
  minLength: z.unknown().optional(),
  pattern: z.unknown().optional(),
  min: z.unknown().optional(),
  max: z.unknown().optional(),
  step: z.unknown().optional(),
  fields: z.array(z.looseObject({ id: z.string() })).optional(),
  minItems: count.optional(),
  maxItems: count.optional(),
  required: flag.optional(),
  fulltext: flag.optional(),
  default: z.unknown().optional(),
  description: z.string().optional(),
  html: z.boolean().optional(),
  // An array's items are checked one by one (checkFieldConf), to name the one at fault.
  listItems: z.union([z.array(z.unknown()), callable]).optional(),
  widget: z.union([z.string(), z.looseObject({ read: callable, render: callable })]).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  validator: callable.optional(),
  schema: z.looseObject({ '~standard': z.unknown() }).optional(),
  node: z.looseObject({ parse: callable }).optional(),
  readonly: z.boolean().optional(),
  hidden: z.boolean().optional(),
  // Read by rules/rules.ts (`checkRules`), whose messages name the effect, scope or keyword at fault.
  rule: z.union([z.looseObject({}), z.array(z.looseObject({}))]).optional(),
} satisfies Record<keyof FieldConf, z.ZodType>);

const actionSchema = z.strictObject({
  id: z.string().min(1),
  method: z.union([z.string(), callable]),
  name: z.string().optional(),
  hidden: z.boolean().optional(),
  cssClass: z.string().optional(),
  description: z.string().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  skipValidation: z.boolean().optional(),
} satisfies Record<keyof ActionConf, z.ZodType>);

const subsetSchema = z.strictObject({
  fields: z.array(z.union([z.string(), z.looseObject({ id: z.string() })])).optional(),
  actions: z.array(z.union([z.string(), z.looseObject({ id: z.string() })])).optional(),
  defaultAction: z.union([z.string(), z.looseObject({ id: z.string() })]).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
} satisfies Record<keyof Subset, z.ZodType>);

function check(schema: z.ZodType, value: unknown, what: string): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const names = issue.keys.map((k) => `"${where ? `${where}.` : ''}${k}"`).join(', ');
      return `unknown ${issue.keys.length > 1 ? 'keys' : 'key'} ${names}`;
    }
    return `"${where}": ${issue.message}`;
  });
  throw new ConfigurationError(`${what}: ${problems.join('; ')}`);
}

/**
 * Checks a field's configuration (its list items too; the fields of a group are checked when
 * they are compiled).
 *
 * @example
 * checkFieldConf({ id: 'email', requried: true }); // throws: Field "email": unknown key "requried"
 */
export function checkFieldConf(field: FieldConf): void {
  const what = `Field "${typeof field.id === 'string' ? field.id : '?'}"`;
  check(fieldSchema, field, what);
  if (Array.isArray(field.listItems))
    for (const item of field.listItems) check(listItemSchema, item, `${what}, list item "${String(item.id)}"`);
}

/**
 * Checks an action's configuration.
 *
 * @example
 * checkActionConf({ id: 'save', method: 'processForm', css_class: 'btn' }); // throws: unknown key "css_class"
 */
export function checkActionConf(action: ActionConf): void {
  check(actionSchema, action, `Action "${typeof action.id === 'string' ? action.id : '?'}"`);
}

/**
 * Checks a subset's configuration.
 *
 * @example
 * checkSubset('edit', { field: ['title'] }); // throws: Subset "edit": unknown key "field"
 */
export function checkSubset(name: string, subset: Subset): void {
  check(subsetSchema, subset, `Subset "${name}"`);
}
