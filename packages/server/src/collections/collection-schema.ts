import { z } from 'zod';
import {
  COLLECTION_NAME_PATTERN,
  NAME_PATTERN,
  SYSTEM_FIELDS,
  TEXT_FORMATS,
  fieldAt,
  fieldOf,
  type CollectionFields,
  type Field,
} from './collection-fields.js';

/**
 * A collection is a JSON Schema (draft 2020-12), of the subset docs/collections.md lists (issue
 * 39, item 1). This module says what that subset is, with every problem of a schema named by
 * its path, and reads a schema into the fields (collection-fields.ts) the rest of the kind uses.
 * What a record must hold is checked by Ajv against the schema itself (record-validator.ts), so
 * the one schema is the database's indexes, the write check, the API's description and the types.
 */

const annotations = {
  title: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
};
const unique = { 'x-unique': z.boolean().optional() };
/**
 * No `type` (an enum, any JSON): so that the compiler, too, refuses a `type` the subset has not
 * (define-collection.ts), where it would otherwise take `{ type: 'date' }` for any JSON.
 */
const noType = z.never().optional();

const stringSchema = z
  .object({
    type: z.literal('string'),
    minLength: z.number().int().min(0).optional(),
    maxLength: z.number().int().min(0).optional(),
    pattern: z
      .string()
      .max(500)
      .refine(
        (p) => {
          try {
            new RegExp(p, 'u');
            return true;
          } catch {
            return false;
          }
        },
        { message: 'not a regular expression' },
      )
      .optional(),
    format: z.enum(TEXT_FORMATS).optional(),
    enum: z.array(z.string()).min(1).max(500).optional(),
    default: z.string().optional(),
    /** The id of a record of this collection, or of an account (`users`). */
    'x-relation': z.string().regex(COLLECTION_NAME_PATTERN).optional(),
    /** A file's path in this file store. */
    'x-file': z.string().min(1).max(63).optional(),
    ...unique,
    ...annotations,
  })
  .strict();

const numberSchema = z
  .object({
    type: z.enum(['number', 'integer']),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    exclusiveMinimum: z.number().optional(),
    exclusiveMaximum: z.number().optional(),
    multipleOf: z.number().positive().optional(),
    enum: z.array(z.number()).min(1).max(500).optional(),
    default: z.number().optional(),
    ...unique,
    ...annotations,
  })
  .strict();

const booleanSchema = z
  .object({ type: z.literal('boolean'), default: z.boolean().optional(), ...annotations })
  .strict();

/** `{ "enum": [...] }` without a type: its values say the kind. */
const enumSchema = z
  .object({
    type: noType,
    enum: z.union([z.array(z.string()).min(1).max(500), z.array(z.number()).min(1).max(500)]),
    default: z.union([z.string(), z.number()]).optional(),
    ...unique,
    ...annotations,
  })
  .strict();

/** Any JSON value: `{}` (with annotations at most). */
const jsonSchema = z.object({ type: noType, default: z.unknown().optional(), ...annotations }).strict();

type PropertySchema =
  | z.infer<typeof stringSchema>
  | z.infer<typeof numberSchema>
  | z.infer<typeof booleanSchema>
  | z.infer<typeof enumSchema>
  | z.infer<typeof jsonSchema>
  | ArraySchema
  | ObjectSchema;

interface ArraySchema {
  type: 'array';
  items: PropertySchema;
  minItems?: number | undefined;
  maxItems?: number | undefined;
  uniqueItems?: boolean | undefined;
  default?: unknown[] | undefined;
  title?: string | undefined;
  description?: string | undefined;
}

interface ObjectSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[] | undefined;
  additionalProperties?: false | undefined;
  title?: string | undefined;
  description?: string | undefined;
}

const propertyNames = z.record(z.string().regex(NAME_PATTERN, 'a field name is letters, digits and _'), z.unknown());

/** How deep objects and arrays may nest in a schema: a record is a document, not a tree of any depth. */
const MAX_DEPTH = 6;

const property: z.ZodType<PropertySchema> = z.lazy(() =>
  z.union([stringSchema, numberSchema, booleanSchema, arraySchema, objectSchema, enumSchema, jsonSchema]),
);

const arraySchema: z.ZodType<ArraySchema> = z
  .object({
    type: z.literal('array'),
    items: property,
    minItems: z.number().int().min(0).optional(),
    maxItems: z.number().int().min(0).optional(),
    uniqueItems: z.boolean().optional(),
    default: z.array(z.unknown()).optional(),
    ...annotations,
  })
  .strict();

const objectSchema: z.ZodType<ObjectSchema> = z
  .object({
    type: z.literal('object'),
    properties: propertyNames.pipe(z.record(z.string(), property)),
    required: z.array(z.string()).optional(),
    additionalProperties: z.literal(false).optional(),
    ...annotations,
  })
  .strict()
  .superRefine((schema, ctx) => {
    for (const [i, name] of (schema.required ?? []).entries()) {
      if (!Object.hasOwn(schema.properties, name)) {
        ctx.addIssue({ code: 'custom', path: ['required', i], message: `no property "${name}" to require` });
      }
    }
  });

/** The schema of a collection: an object schema, with its indexes. */
const collectionSchemaShape = z
  .object({
    $schema: z.literal('https://json-schema.org/draft/2020-12/schema').optional(),
    type: z.literal('object'),
    properties: propertyNames.pipe(z.record(z.string(), property)),
    required: z.array(z.string()).optional(),
    additionalProperties: z.literal(false).optional(),
    /** Indexes: each a list of field paths (`["status"]`, `["status", "priority"]`). */
    'x-indexes': z
      .array(
        z
          .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]{0,200}$/))
          .min(1)
          .max(8),
      )
      .max(32)
      .optional(),
    ...annotations,
  })
  .strict();

export type CollectionSchema = z.infer<typeof collectionSchemaShape>;

/** A schema problem, as `[path, reason]` (`properties.title.maxLength`, `must be a number`). */
export type SchemaProblem = [path: string, reason: string];

function depthOf(schema: PropertySchema): number {
  if ('type' in schema && schema.type === 'array') return 1 + depthOf(schema.items);
  if ('type' in schema && schema.type === 'object')
    return 1 + Math.max(0, ...Object.values(schema.properties).map(depthOf));
  return 0;
}

/** Reads a field's schema into its `Field`; `required` comes from the parent. */
function fieldFrom(name: string, schema: PropertySchema, required: boolean): Field {
  const type = 'type' in schema ? schema.type : undefined;
  const isUnique = 'x-unique' in schema && schema['x-unique'] === true;
  switch (type) {
    case 'string': {
      const s = schema as z.infer<typeof stringSchema>;
      return fieldOf(name, 'text', {
        format: s.format ?? null,
        relation: s['x-relation'] ?? null,
        file: s['x-file'] ?? null,
        required,
        unique: isUnique,
      });
    }
    case 'number':
    case 'integer':
      return fieldOf(name, 'number', { integer: type === 'integer', required, unique: isUnique });
    case 'boolean':
      return fieldOf(name, 'boolean', { required });
    case 'array':
      return fieldOf(name, 'array', { items: fieldFrom(name, (schema as ArraySchema).items, false), required });
    case 'object': {
      const o = schema as ObjectSchema;
      const inner = new Set(o.required ?? []);
      const fields = Object.entries(o.properties).map(([n, s]) => fieldFrom(n, s, inner.has(n)));
      return fieldOf(name, 'object', { fields, required });
    }
    default:
      if ('enum' in schema && Array.isArray(schema.enum)) {
        const kind = typeof schema.enum[0] === 'number' ? 'number' : 'text';
        return fieldOf(name, kind, { required, unique: isUnique });
      }
      return fieldOf(name, 'json', { required });
  }
}

/** A checked collection schema, with the fields read from it. */
export interface ReadSchema {
  readonly schema: CollectionSchema;
  readonly fields: CollectionFields;
  /** Its indexes, each as the fields' paths. */
  readonly indexes: ReadonlyArray<readonly string[]>;
}

const RESERVED_NAMES: ReadonlySet<string> = new Set([...SYSTEM_FIELDS, 'expand']);

/**
 * Checks a schema against the subset and reads it; every problem at once, by path. The system
 * fields' names are taken (`id`, `created`, `updated`, `owner`, and `expand` where an answer puts
 * related records: record-expand.ts), and an index names fields
 * the schema has, of a kind an index can hold (text, number, boolean).
 */
export function readSchema(
  name: string,
  input: unknown,
): { ok: true; value: ReadSchema } | { ok: false; problems: SchemaProblem[] } {
  const parsed = collectionSchemaShape.safeParse(input);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => [i.path.map(String).join('.'), i.message]) };
  }
  const schema = parsed.data;
  const problems: SchemaProblem[] = [];
  const required = new Set(schema.required ?? []);
  for (const [i, field] of (schema.required ?? []).entries()) {
    if (!Object.hasOwn(schema.properties, field)) problems.push([`required.${i}`, `no property "${field}" to require`]);
  }
  for (const [field, property] of Object.entries(schema.properties)) {
    if (RESERVED_NAMES.has(field))
      problems.push([`properties.${field}`, 'this name is a system field of every record']);
    if (depthOf(property) > MAX_DEPTH) problems.push([`properties.${field}`, `nests deeper than ${MAX_DEPTH} levels`]);
  }
  const fields: CollectionFields = {
    name,
    fields: Object.entries(schema.properties).map(([n, s]) => fieldFrom(n, s, required.has(n))),
  };
  const indexes = (schema['x-indexes'] ?? []).map((paths) => paths.map((p) => p));
  for (const [i, paths] of indexes.entries()) {
    for (const path of paths) {
      const field = fieldAt(fields, path.split('.'));
      if (!field) problems.push([`x-indexes.${i}`, `no field "${path}"`]);
      else if (!['text', 'number', 'boolean'].includes(field.kind))
        problems.push([
          `x-indexes.${i}`,
          `"${path}" is ${field.kind === 'array' ? 'an' : 'a'} ${field.kind}: not indexable`,
        ]);
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, value: { schema, fields, indexes } };
}
