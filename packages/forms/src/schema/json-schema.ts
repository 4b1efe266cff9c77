import { isDeepStrictEqual } from 'node:util';
import { ConfigurationError } from '../conf/configuration-error.js';
import { fieldDatatype, fieldSize, staticItems, type FieldConf, type ListItem } from '../conf/field-conf.js';
import { passwordMinimum } from '../validate/constraints.js';
import { ruleConditions } from '../rules/rules-schema.js';
import { readRules } from '../rules/rules-import.js';
import { withControlsetRules } from '../rules/controlset-rules.js';

/** A JSON Schema (draft 2020-12) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Options of `formJsonSchema`. */
export interface JsonSchemaOptions {
  /** The schema's `title`. */
  title?: string;
  /**
   * Kept for compatibility and without effect: a controlset item's fields are always shown (and
   * required) only while their item is chosen, as SHOW rules (rules/controlset-rules.ts).
   */
  skipUnselectedControls?: boolean;
}

/**
 * The form's own output of `time` and `datetime` (validate/datatypes.ts: `parseTime`,
 * `parseDateTime`): seconds always, no fraction, an offset only when one was typed. JSON Schema's
 * `time` and `date-time` formats ask for an offset, so the export names ajv-formats' `iso-time`
 * and `iso-date-time` and adds these patterns, which say the same to a validator without them.
 */
const TIME_PATTERN = '^(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d$';
const DATETIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:Z|[+-]\\d{2}:?\\d{2})?$';
/** The form takes http and https urls only (validate/datatypes.ts), with a host. */
const URL_PATTERN = '^https?://[^/?#\\s]+';

/** What a json field never holds: what counts as empty, for which the form gives no value at all. */
const JSON_EMPTY: JsonSchema = { anyOf: [{ enum: [null, ''] }, { type: 'array', items: { enum: [null, ''] } }] };

/** A field's pattern as JSON Schema means it: the form matches the whole value (validate/constraints.ts). */
const anchoredPattern = (pattern: string): string => `^(?:${pattern})$`;

/**
 * The keywords of a text value beyond its type and length: the form checks them on a value that
 * is not empty only, so an optional field's `''` passes them (`anyOf` below).
 */
function textChecks(field: FieldConf, format?: string, pattern?: string): JsonSchema {
  return defined({
    minLength: fieldDatatype(field) === 'password' ? passwordMinimum(field) : field.minLength || undefined,
    format,
    pattern: field.pattern !== undefined ? anchoredPattern(field.pattern) : pattern,
  });
}

/** The schema of one field's converted value (validate/datatypes.ts says what each datatype makes). */
function valueSchema(field: FieldConf): JsonSchema {
  const datatype = fieldDatatype(field);
  const size = fieldSize(field) || undefined;
  const text = (format?: string, pattern?: string): JsonSchema => ({
    type: 'string',
    maxLength: size,
    ...textChecks(field, format, pattern),
  });
  const ids = staticItems(field).map((i) => i.id);
  const choice: JsonSchema = ids.length ? { enum: ids } : { type: ['string', 'number'] };
  // Dates compare as text in their own form (validate/constraints.ts); ajv-formats' keywords say so.
  const bounds = { formatMinimum: field.min, formatMaximum: field.max };
  switch (datatype) {
    case 'email':
      return text('email');
    case 'url':
      return text('uri', URL_PATTERN);
    case 'password':
      return { ...text(), writeOnly: true };
    case 'number':
    case 'float':
      return {
        type: datatype === 'number' ? 'integer' : 'number',
        minimum: field.min,
        maximum: field.max,
        // multipleOf counts from 0; a step counted from another minimum has no keyword.
        multipleOf:
          typeof field.step === 'number' && !(typeof field.min === 'number' && field.min % field.step)
            ? field.step
            : undefined,
      };
    case 'bool':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date', ...bounds };
    case 'time':
      return { type: 'string', format: 'iso-time', pattern: TIME_PATTERN, ...bounds };
    case 'datetime':
      return { type: 'string', format: 'iso-date-time', pattern: DATETIME_PATTERN, ...bounds };
    case 'list':
    case 'radio':
      return choice;
    // The form keeps a repeated choice as sent (validate/datatypes.ts), so no uniqueItems.
    case 'multilist':
      return { type: 'array', items: choice };
    case 'checkbox':
      return field.listItems ? { type: 'array', items: choice } : { type: 'boolean' };
    case 'lines':
      return { type: 'array', items: { type: 'string', minLength: 1 } };
    case 'json':
      return { not: JSON_EMPTY };
    case 'group':
      return objectSchema(field.fields ?? []);
    case 'repeat':
      return {
        type: 'array',
        items: objectSchema(field.fields ?? []),
        minItems: Math.max(field.minItems ?? 0, field.required ? 1 : 0) || undefined,
        maxItems: field.maxItems,
      };
    case 'file':
      return {
        type: 'object',
        properties: {
          filename: { type: 'string' },
          mime: { type: 'string' },
          size: { type: 'integer', minimum: 0, maximum: size },
        },
        required: ['filename', 'size'],
      };
    default:
      return text();
  }
}

/** Whether the form keeps `''` for the field when nothing was entered (validate/datatypes.ts `empty`). */
const TEXT_TYPES = new Set(['string', 'hidden', 'text', 'password', 'email', 'url']);
const LIST_TYPES = new Set(['multilist', 'lines']);

/**
 * What `required` adds to a field's value beyond being present: the form refuses `''`, `[]` and an
 * unchecked single checkbox as "Required" (validate/field-adapter.ts), so must the schema.
 */
function nonEmpty(field: FieldConf): JsonSchema | undefined {
  const datatype = fieldDatatype(field);
  if (TEXT_TYPES.has(datatype)) return { type: 'string', minLength: 1 };
  if (LIST_TYPES.has(datatype) || (datatype === 'checkbox' && field.listItems)) return { type: 'array', minItems: 1 };
  if (datatype === 'checkbox') return { const: true };
  return undefined;
}

/**
 * The value schema with emptiness: a required text's `minLength` is at least 1; an optional
 * text's checks (pattern, format, least length) hold for a value that is not `''`.
 */
function fieldValueSchema(field: FieldConf, required: boolean): JsonSchema {
  const schema = defined(valueSchema(field));
  const datatype = fieldDatatype(field);
  if (required) {
    const extra = nonEmpty(field);
    if (!extra) return schema;
    if (typeof extra.minLength === 'number')
      return { ...schema, minLength: Math.max(Number(schema.minLength ?? 0), extra.minLength) };
    if (typeof extra.minItems === 'number')
      return { ...schema, minItems: Math.max(Number(schema.minItems ?? 0), extra.minItems) };
    if ('const' in extra) return { ...extra };
    return { ...schema, ...extra };
  }
  if (!TEXT_TYPES.has(datatype)) return schema;
  const checks = textChecks(field, schema.format as string | undefined, schema.pattern as string | undefined);
  if (!Object.keys(checks).length) return schema;
  const { minLength: _m, format: _f, pattern: _p, ...rest } = schema;
  return { ...rest, anyOf: [{ const: '' }, checks] };
}

/** The schema of a group's object: its fields' properties, the required ones named. */
function objectSchema(fields: readonly FieldConf[]): JsonSchema {
  const { properties, required, conditions } = propertiesOf(fields);
  return defined({
    type: 'object',
    properties,
    required: required.length ? required : undefined,
    allOf: conditions.length ? conditions : undefined,
  });
}

/** A group's value is always there (an object, maybe empty): `required` has nothing to ask of it. */
const requiredKey = (field: FieldConf): boolean => Boolean(field.required) && fieldDatatype(field) !== 'group';

function propertiesOf(fields: readonly FieldConf[]): {
  properties: Record<string, JsonSchema>;
  required: string[];
  conditions: JsonSchema[];
} {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const conditions: JsonSchema[] = [];
  for (const field of fields) {
    if (field.readonly) continue;
    // A ruled field is required, and there at all, as its rules say (rules/rules-schema.ts).
    const ruled = ruleConditions(field, fieldValueSchema(field, true));
    properties[field.id] = propertyOf(field, Boolean(field.required) && !ruled);
    if (ruled) conditions.push(...ruled);
    else if (requiredKey(field)) required.push(field.id);
  }
  return { properties, required, conditions };
}

function propertyOf(field: FieldConf, required: boolean): JsonSchema {
  return defined({
    title: field.name,
    description: field.description,
    default: field.default ?? undefined,
    ...fieldValueSchema(field, required),
  });
}

/** Drops the keywords a field does not set (`undefined`), so the schema says only what holds. */
function defined(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined));
}

/**
 * The JSON Schema (draft 2020-12) of a form's valid data: one property per field (a controlset
 * item's fields too), with its title, description, default and constraints; `readonly` fields
 * are left out, as the form leaves them out.
 *
 * @example
 * formJsonSchema([{ id: 'age', name: 'Age', datatype: 'number', required: true, min: 0 }]);
 * // { $schema: '…/2020-12/schema', type: 'object', properties: { age: { type: 'integer', … } }, required: ['age'] }
 */
export function formJsonSchema(fields: readonly FieldConf[], options: JsonSchemaOptions = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const conditions: JsonSchema[] = [];
  // A controlset's item fields are top-level fields with SHOW rules (rules/controlset-rules.ts).
  for (const field of withControlsetRules(fields, staticItems)) {
    if (field.readonly) continue;
    const ruled = ruleConditions(field, fieldValueSchema(field, true));
    properties[field.id] = propertyOf(field, Boolean(field.required) && !ruled);
    if (ruled) conditions.push(...ruled);
    else if (field.required && requiredKey(field)) required.push(field.id);
  }
  return defined({
    $schema: DIALECT,
    title: options.title,
    type: 'object',
    properties,
    required: required.length ? required : undefined,
    allOf: conditions.length ? conditions : undefined,
  });
}

const FORMATS: Readonly<Record<string, string>> = {
  email: 'email',
  uri: 'url',
  url: 'url',
  date: 'date',
  time: 'time',
  'date-time': 'datetime',
  'iso-time': 'time',
  'iso-date-time': 'datetime',
};

/**
 * The keywords a field honours (after `readExport`); any other is refused by name rather than
 * dropped without a word (`$ref`, `allOf`, `if`, `const`, `additionalProperties`, `uniqueItems`, …).
 */
const FIELD_KEYWORDS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'default',
  'type',
  'format',
  'enum',
  'oneOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'formatMinimum',
  'formatMaximum',
  'writeOnly',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
]);
const GROUP_KEYWORDS: ReadonlySet<string> = new Set([...FIELD_KEYWORDS, 'allOf']);
/** The keywords of the schema of a form (or of a group, or of a repeat's items). */
const OBJECT_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'type',
  'properties',
  'required',
]);

/** The schema of a file's value, as `valueSchema` writes it. */
const isFileSchema = (p: JsonSchema): boolean =>
  p.type === 'object' &&
  isRecord(p.properties) &&
  Object.keys(p.properties).join() === 'filename,mime,size' &&
  JSON.stringify(p.required) === JSON.stringify(['filename', 'size']);

/**
 * Form fields from a JSON Schema of an object: one field per property, its type, `title`,
 * `description`, `default`, `enum` (a select; `oneOf` of `const` + `title` names the items),
 * `minimum`/`maximum`/`multipleOf`, `minLength`/`maxLength`/`pattern` and the formats email,
 * uri, date, time and date-time; `required` makes fields required. An array of choices becomes
 * checkboxes, an array of strings a `lines` field, a nested object a `group` and an array of
 * objects a `repeat` (both rendered inline); an object without properties, or an array of
 * anything else, a `json` field (edited as JSON text). A keyword it
 * cannot honour (`$ref`, `anyOf`, an exclusive bound on a fractional number) throws a
 * `ConfigurationError` naming the property.
 *
 * @example
 * const schema = { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] };
 * fieldsFromJsonSchema(schema);
 * // [{ id: 'email', datatype: 'email', required: true }]
 */
export function fieldsFromJsonSchema(schema: JsonSchema, where = 'The schema'): FieldConf[] {
  if (schema.type !== 'object' || !isRecord(schema.properties))
    throw new ConfigurationError('A form is made from the schema of an object: type "object" with properties');
  const refuse = (keyword: string): never => {
    throw new ConfigurationError(`${where}: ${keyword} cannot be expressed by a form (rules between fields, …)`);
  };
  for (const keyword of Object.keys(schema)) if (!OBJECT_KEYWORDS.has(keyword) && keyword !== 'allOf') refuse(keyword);
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const fields = Object.entries(schema.properties).map(([id, property]) => {
    if (!isRecord(property)) throw new ConfigurationError(`Property "${id}": not a schema`);
    return fieldOf(id, property, required.has(id));
  });
  if (schema.allOf === undefined) return fields;
  if (!Array.isArray(schema.allOf)) return refuse('allOf');
  // Fields' rules at any depth (rules/rules-import.ts), a controlset's among them.
  const { fields: ruled, rest } = readRules(fields, schema.allOf, refuse);
  if (rest.length) refuse('allOf');
  return ruled;
}

/**
 * The export's own shapes read back as the keywords they stand for: an optional text's
 * `anyOf: [{ const: '' }, checks]`, an anchored `^(?:P)$` pattern (any other pattern matches
 * anywhere in the value, as JSON Schema says), the patterns that come with the `iso-time`,
 * `iso-date-time` and url formats, and a required value's `minLength`/`minItems` of 1.
 */
function readExport(p: JsonSchema, required: boolean): JsonSchema {
  let out: JsonSchema = { ...p };
  const [empty, checks] = Array.isArray(out.anyOf) ? out.anyOf : [];
  if (out.anyOf && out.type === 'string' && isRecord(empty) && empty.const === '' && isRecord(checks)) {
    const { anyOf: _, ...rest } = out;
    out = { ...rest, ...checks };
  }
  const formatPattern = { 'iso-time': TIME_PATTERN, 'iso-date-time': DATETIME_PATTERN, uri: URL_PATTERN };
  if (typeof out.format === 'string' && formatPattern[out.format as keyof typeof formatPattern] === out.pattern)
    delete out.pattern;
  if (typeof out.pattern === 'string') {
    const whole = /^\^\(\?:([\s\S]*)\)\$$/.exec(out.pattern)?.[1] ?? /^\^([^|]*[^\\|])\$$/.exec(out.pattern)?.[1];
    out.pattern = whole ?? `[\\s\\S]*(?:${out.pattern})[\\s\\S]*`;
  }
  if (required && out.minLength === 1 && out.type === 'string' && !out.writeOnly) delete out.minLength;
  if (
    required &&
    out.minItems === 1 &&
    out.type === 'array' &&
    !isRecord(isRecord(out.items) ? out.items.properties : 0)
  )
    delete out.minItems;
  return out;
}

function fieldOf(id: string, raw: JsonSchema, required: boolean): FieldConf {
  const fail = (why: string): never => {
    throw new ConfigurationError(`Property "${id}": ${why}`);
  };
  const p = readExport(raw, required);
  const known = (schema: JsonSchema, keywords: ReadonlySet<string>, what = '') => {
    for (const keyword of Object.keys(schema))
      if (!keywords.has(keyword)) fail(`${what}${keyword} cannot be expressed by a form field`);
  };
  const field: FieldConf = {
    id,
    // No title, no name: the label falls back to the id, and the export stays without a title.
    ...(typeof p.title === 'string' ? { name: p.title } : {}),
    ...(typeof p.description === 'string' ? { description: p.description } : {}),
    ...(p.default !== undefined ? { default: p.default } : {}),
    ...(required ? { required: true } : {}),
  };
  // The export's own shapes of a json field, a checked single checkbox and a file (valueSchema).
  const { title: _t, description: _d, default: _v, ...shape } = p;
  if (isDeepStrictEqual(shape, { not: JSON_EMPTY })) return { ...field, datatype: 'json' };
  if (isDeepStrictEqual(shape, { const: true })) return { ...field, datatype: 'checkbox' };
  if (isFileSchema(shape)) {
    const size = isRecord(shape.properties) && isRecord(shape.properties.size) ? shape.properties.size.maximum : 0;
    return { ...field, datatype: 'file', ...numberOr('size', size) };
  }
  // A group's object may carry its fields' rules (`allOf`, read by fieldsFromJsonSchema below).
  known(p, p.type === 'object' ? GROUP_KEYWORDS : FIELD_KEYWORDS);
  if (typeof p.format === 'string' && !FORMATS[p.format]) fail(`format "${p.format}" is not one a form field checks`);
  // A choice whose items are loaded by a callback (valueSchema's `choice` without ids).
  if (isDeepStrictEqual(p.type, ['string', 'number'])) return { ...field, datatype: 'list' };
  const items = choicesOf(p);
  if (items) return { ...field, datatype: 'list', listItems: items };
  const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
  switch (type) {
    case 'string': {
      const format = typeof p.format === 'string' ? FORMATS[p.format] : undefined;
      return {
        ...field,
        ...(format ? { datatype: format } : {}),
        ...numberOr('size', p.maxLength),
        ...numberOr('minLength', p.minLength),
        ...(typeof p.pattern === 'string' ? { pattern: p.pattern } : {}),
        ...(typeof p.formatMinimum === 'string' ? { min: p.formatMinimum } : {}),
        ...(typeof p.formatMaximum === 'string' ? { max: p.formatMaximum } : {}),
        ...(p.writeOnly === true ? { datatype: 'password' } : {}),
      };
    }
    case 'integer':
    case 'number': {
      const integer = type === 'integer';
      const bound = (inclusive: unknown, exclusive: unknown, by: 1 | -1): number | undefined => {
        if (typeof exclusive === 'number') {
          if (!integer) fail('an exclusive bound on a fractional number has no form field constraint');
          return exclusive + by;
        }
        return typeof inclusive === 'number' ? inclusive : undefined;
      };
      const min = bound(p.minimum, p.exclusiveMinimum, 1);
      const max = bound(p.maximum, p.exclusiveMaximum, -1);
      return {
        ...field,
        datatype: integer ? 'number' : 'float',
        ...(min !== undefined ? { min } : {}),
        ...(max !== undefined ? { max } : {}),
        ...numberOr('step', p.multipleOf),
      };
    }
    case 'boolean':
      return { ...field, datatype: 'bool' };
    case 'array': {
      const of = isRecord(p.items) ? p.items : {};
      const choices = choicesOf(of);
      if (choices) {
        known(of, new Set(['enum', 'oneOf']), 'items: ');
        return { ...field, datatype: 'checkbox', listItems: choices };
      }
      if (of.type === 'string') {
        // A line is never empty: the form drops empty lines (validate/datatypes.ts).
        known(of, new Set(['type', 'minLength']), 'items: ');
        if (of.minLength !== undefined && of.minLength !== 1)
          fail('items: minLength cannot be expressed by a form field');
        return { ...field, datatype: 'lines' };
      }
      if (of.type === 'object' && isRecord(of.properties)) {
        return {
          ...field,
          datatype: 'repeat',
          fields: fieldsFromJsonSchema(of, `Property "${id}", items`),
          ...numberOr('minItems', p.minItems),
          ...numberOr('maxItems', p.maxItems),
        };
      }
      return { ...field, datatype: 'json' };
    }
    case 'object':
      return isRecord(p.properties)
        ? { ...field, datatype: 'group', fields: fieldsFromJsonSchema(p, `Property "${id}"`) }
        : { ...field, datatype: 'json' };
    default:
      return fail(`type ${JSON.stringify(p.type)} is not one a form field holds`);
  }
}

/** List items from `enum`, or from `oneOf` of `{ const, title }`; undefined when neither is there. */
function choicesOf(p: JsonSchema): ListItem[] | undefined {
  if (Array.isArray(p.enum)) return p.enum.map((v) => ({ id: choiceId(v), name: String(v) }));
  if (Array.isArray(p.oneOf) && p.oneOf.every((o) => isRecord(o) && 'const' in o)) {
    return p.oneOf.map((o: JsonSchema) => ({
      id: choiceId(o.const),
      name: typeof o.title === 'string' ? o.title : String(o.const),
    }));
  }
  return undefined;
}

function choiceId(value: unknown): string | number {
  return typeof value === 'number' ? value : String(value);
}

function numberOr<K extends string>(key: K, value: unknown): Partial<Record<K, number>> {
  return typeof value === 'number' ? ({ [key]: value } as Partial<Record<K, number>>) : {};
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
