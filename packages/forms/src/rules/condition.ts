/* The condition of a rule (rules.ts): a small part of JSON Schema, evaluated on one field's value.
   One implementation for both sides: the server calls it, and the browser script carries its
   source (render/assets.ts joins `matchesCondition.toString()`), so the two cannot disagree. It
   therefore uses no helper and no closure over anything outside itself. */
import { ConfigurationError } from '../conf/configuration-error.js';

/** The keywords a condition may use; any other throws a `ConfigurationError` naming it. */
const conditionKeywords: ReadonlySet<string> = new Set([
  'const',
  'enum',
  'not',
  'anyOf',
  'allOf',
  'type',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'contains',
  'minItems',
  'maxItems',
]);

/**
 * Whether `value` satisfies the condition `schema`, as JSON Schema says (draft 2020-12) for these
 * keywords: `undefined` (no value) fails `const`, `enum` and `type` and passes the keywords of a
 * kind of value it is not, as a missing property passes `properties` (schema/json-schema.ts
 * exports a rule's `if` accordingly).
 *
 * @example
 * matchesCondition({ const: 'business' }, 'business'); // true
 * matchesCondition({ contains: { const: 'post' } }, ['mail', 'post']); // true
 */
export function matchesCondition(schema: Readonly<Record<string, unknown>>, value: unknown): boolean {
  const keys = Object.keys(schema);
  for (let k = 0; k < keys.length; k += 1) {
    const key = keys[k] as string;
    const arg = schema[key] as never;
    const isString = typeof value === 'string';
    const isNumber = typeof value === 'number';
    const isArray = Array.isArray(value);
    let ok = true;
    if (key === 'const') ok = value !== undefined && JSON.stringify(value) === JSON.stringify(arg);
    else if (key === 'enum')
      ok = value !== undefined && (arg as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value));
    else if (key === 'not') ok = !matchesCondition(arg, value);
    else if (key === 'anyOf') ok = (arg as Array<Record<string, unknown>>).some((s) => matchesCondition(s, value));
    else if (key === 'allOf') ok = (arg as Array<Record<string, unknown>>).every((s) => matchesCondition(s, value));
    else if (key === 'type') {
      const types = Array.isArray(arg) ? (arg as string[]) : [arg as string];
      const kind =
        value === null
          ? 'null'
          : isArray
            ? 'array'
            : typeof value === 'number' && Number.isInteger(value)
              ? 'integer'
              : typeof value;
      ok = types.indexOf(kind) >= 0 || (kind === 'integer' && types.indexOf('number') >= 0);
    } else if (key === 'minimum') ok = !isNumber || (value as number) >= arg;
    else if (key === 'maximum') ok = !isNumber || (value as number) <= arg;
    else if (key === 'exclusiveMinimum') ok = !isNumber || (value as number) > arg;
    else if (key === 'exclusiveMaximum') ok = !isNumber || (value as number) < arg;
    // Lengths in code points, as JSON Schema counts them.
    else if (key === 'minLength') ok = !isString || Array.from(value as string).length >= arg;
    else if (key === 'maxLength') ok = !isString || Array.from(value as string).length <= arg;
    else if (key === 'pattern') ok = !isString || new RegExp(arg, 'u').test(value as string);
    else if (key === 'contains') ok = !isArray || (value as unknown[]).some((v) => matchesCondition(arg, v));
    else if (key === 'minItems') ok = !isArray || (value as unknown[]).length >= arg;
    else if (key === 'maxItems') ok = !isArray || (value as unknown[]).length <= arg;
    if (!ok) return false;
  }
  return true;
}

/**
 * Refuses a condition with a keyword `matchesCondition` does not know (at any depth), naming it:
 * a rule that silently ignored part of its condition would show or hide the wrong fields.
 *
 * @example
 * checkCondition({ cosnt: 1 }, 'Field "vat"'); // throws: Field "vat": rule condition keyword "cosnt" is not supported
 */
export function checkCondition(schema: unknown, where: string): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new ConfigurationError(`${where}: a rule's condition schema must be an object`);
  for (const [key, arg] of Object.entries(schema)) {
    if (!conditionKeywords.has(key))
      throw new ConfigurationError(`${where}: rule condition keyword "${key}" is not supported`);
    if (key === 'not' || key === 'contains') checkCondition(arg, where);
    if ((key === 'anyOf' || key === 'allOf') && Array.isArray(arg)) for (const s of arg) checkCondition(s, where);
    if (key === 'pattern' && typeof arg === 'string') new RegExp(arg, 'u');
  }
}
