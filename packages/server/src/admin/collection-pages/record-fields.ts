import {
  ConfigurationError,
  displayText,
  escapeHtml,
  fieldsFromJsonSchema,
  inputAttrs,
  textValue,
  type FieldConf,
  type ListItem,
  type Widget,
} from '@roost/forms';

/**
 * A record's form from its collection's JSON Schema (issue 39, item 7). Plain fields come from
 * the form library's `fieldsFromJsonSchema` (text, numbers, booleans, choices, formats, lists of
 * text); this adds what the schema subset of collections has beyond plain JSON Schema
 * (docs/collections.md): objects as groups and lists of objects as repeats with the same rules
 * inside, `{}` and other lists as JSON text, relations (`x-relation`) as an input that offers the
 * target's records, files (`x-file`) as a path with an upload beside it (top-level fields). Then
 * the form's values back to the record's data.
 */

export type Schema = Readonly<Record<string, unknown>>;

/** Offered values of relations, by target (`users` or a collection). */
export type RelationChoices = ReadonlyMap<string, readonly ListItem[]>;

/** The upload field beside a top-level file field (a hyphen is in no field's name). */
export const uploadFieldOf = (name: string) => `${name}-upload`;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const propertiesOf = (schema: Schema): Array<[string, Schema]> =>
  isSchema(schema.properties)
    ? Object.entries(schema.properties).filter((e): e is [string, Schema] => isSchema(e[1]))
    : [];
const requiredOf = (schema: Schema) => new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);

/**
 * A text input with a `<datalist>` of the target's records: the browser searches it as one types
 * (by id and by label), and any id may still be typed (the service checks nothing more of a
 * relation than the schema does).
 */
function relationWidget(choices: readonly ListItem[]): Widget {
  return {
    read: (field, values) => textValue(values[field.id])?.trim(),
    render: (input) => {
      const list = `${input.oid}-choices`;
      const options = choices.map((c) => `<option value="${escapeHtml(c.id)}">${escapeHtml(c.name)}</option>`).join('');
      return (
        `<input${inputAttrs(input, { type: 'text', value: displayText(input.value), list, autocomplete: 'off' })}>` +
        `<datalist id="${escapeHtml(list)}">${options}</datalist>`
      );
    },
  };
}

/** Keywords the record validator checks and a form field would check otherwise (or not at all). */
const LEFT_TO_THE_VALIDATOR = ['pattern', 'exclusiveMinimum', 'exclusiveMaximum', 'x-unique'];

/** A plain field by the form library; what it cannot make is JSON text. */
function plainField(id: string, schema: Schema, required: boolean): FieldConf {
  const cleaned = Object.fromEntries(Object.entries(schema).filter(([k]) => !LEFT_TO_THE_VALIDATOR.includes(k)));
  const fromSchema = (property: Schema): FieldConf | null => {
    try {
      return (
        fieldsFromJsonSchema({ type: 'object', properties: { [id]: property }, required: required ? [id] : [] }) as [
          FieldConf,
        ]
      )[0];
    } catch (err) {
      if (!(err instanceof ConfigurationError)) throw err;
      return null;
    }
  };
  // A format the form library does not check (`uuid`) leaves a text input: the record validator checks it.
  const { format: _format, ...unformatted } = cleaned;
  const asJson: FieldConf = {
    id,
    name: typeof schema.title === 'string' ? schema.title : id,
    datatype: 'json',
    required,
  };
  let field = fromSchema(cleaned) ?? fromSchema(unformatted) ?? asJson;
  if (field.datatype === 'list' && !required) field = { ...field, settings: { ...field.settings, addempty: true } };
  if (schema.format === 'date-time') field = { ...field, description: withWords(field.description, 'In UTC.') };
  return field;
}

const withWords = (description: string | undefined, words: string) => (description ? `${description} ${words}` : words);

/**
 * The fields of one property. `required` is the property's own and every enclosing object's: a
 * required member of an optional object is not required of a record without that object.
 */
function fieldsOf(id: string, schema: Schema, required: boolean, choices: RelationChoices, top: boolean): FieldConf[] {
  const base: FieldConf = {
    id,
    name: typeof schema.title === 'string' ? schema.title : id,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    ...(required ? { required: true } : {}),
  };
  const relation = schema['x-relation'];
  if (typeof relation === 'string') {
    const words = relation === 'users' ? 'The id of an account.' : `The id of a record of ${relation}.`;
    const widget = relationWidget(choices.get(relation) ?? []);
    return [{ ...base, datatype: 'string', widget, description: withWords(base.description, words) }];
  }
  const file = schema['x-file'];
  if (typeof file === 'string') {
    const path = {
      ...base,
      datatype: 'string',
      description: withWords(base.description, `A path in the file store ${file}.`),
    };
    if (!top) return [path];
    const upload: FieldConf = {
      id: uploadFieldOf(id),
      name: `Upload ${base.name}`,
      datatype: 'file',
      description: `Stored in the file store ${file}; its path replaces the one above.`,
    };
    return [{ ...path, required: false }, upload];
  }
  if (schema.type === 'object') {
    const inner = requiredOf(schema);
    const fields = propertiesOf(schema).flatMap(([n, s]) => fieldsOf(n, s, required && inner.has(n), choices, false));
    return [{ ...base, datatype: 'group', fields }];
  }
  if (schema.type === 'array' && isSchema(schema.items) && schema.items.type === 'object') {
    const items = schema.items;
    const inner = requiredOf(items);
    const fields = propertiesOf(items).flatMap(([n, s]) => fieldsOf(n, s, inner.has(n), choices, false));
    return [{ ...base, datatype: 'repeat', fields }];
  }
  if (schema.type === undefined && !Array.isArray(schema.enum))
    return [{ ...base, datatype: 'json', settings: { rows: 4 } }];
  return [plainField(id, schema, required)];
}

/** The JSON text a JSON field shows of a value: text, too, as JSON (the widget would show it bare). */
const jsonText = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value, null, 2));

/** Each field with the value it starts with: the record's (editing), else the schema's default. */
function withValues(fields: FieldConf[], values: Readonly<Record<string, unknown>> | undefined): FieldConf[] {
  return fields.map((field) => {
    const value = values ? values[field.id] : field.default;
    if (field.datatype === 'json') {
      const { default: _dropped, ...rest } = field;
      const text = jsonText(value);
      return text === undefined ? rest : { ...rest, default: text };
    }
    if (values === undefined || value === undefined) return field;
    return { ...field, default: value };
  });
}

/** The record form's fields; `record` gives them its values (else the schema's defaults). */
export function recordFields(
  schema: Schema,
  choices: RelationChoices,
  record?: Readonly<Record<string, unknown>>,
): FieldConf[] {
  const required = requiredOf(schema);
  const fields = propertiesOf(schema).flatMap(([name, s]) => fieldsOf(name, s, required.has(name), choices, true));
  return withValues(fields, record);
}

/** Every relation target the schema names, at any depth. */
export function relationTargets(schema: Schema): string[] {
  const found = new Set<string>();
  const walk = (s: Schema) => {
    if (typeof s['x-relation'] === 'string') found.add(s['x-relation']);
    for (const [, p] of propertiesOf(s)) walk(p);
    if (isSchema(s.items)) walk(s.items);
  };
  walk(schema);
  return [...found];
}

/** The top-level file fields: name and file store. */
export function fileFields(schema: Schema): Array<{ name: string; store: string }> {
  return propertiesOf(schema).flatMap(([name, s]) =>
    typeof s['x-file'] === 'string' ? [{ name, store: s['x-file'] }] : [],
  );
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** A form value as the schema keeps it: empty is absent, objects without members too, times in UTC. */
function storedValue(schema: Schema, value: unknown): unknown {
  if (isEmpty(value)) return undefined;
  if (schema.type === 'object' && isSchema(value)) return dataOf(schema, value);
  if (schema.type === 'array' && isSchema(schema.items) && schema.items.type === 'object' && Array.isArray(value)) {
    const items = schema.items;
    const kept = value.map((v) => (isSchema(v) ? dataOf(items, v) : v)).filter((v) => v !== undefined);
    return kept.length ? kept : undefined;
  }
  // The form's date and time has no zone (an input of type datetime-local): the field says UTC.
  if (schema.format === 'date-time' && typeof value === 'string' && /T\d\d:\d\d(:\d\d)?$/.test(value))
    return `${value}Z`;
  return value;
}

/** An object's data from its form values; undefined when no member has a value. */
function dataOf(schema: Schema, values: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [name, s] of propertiesOf(schema)) {
    const value = storedValue(s, values[name]);
    if (value !== undefined) out[name] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The record's data from the form's values (the top-level object, never undefined). */
export function recordData(schema: Schema, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return dataOf(schema, values) ?? {};
}
