import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { FieldProblem } from '../core/errors.js';
import { commonErrors } from '../core/errors.js';
import { isWellFormed } from '../core/validation.js';
import type { CollectionSchema } from './collection-schema.js';

/**
 * The write check of a collection's records: Ajv (draft 2020-12, with ajv-formats) compiles the
 * collection's own JSON Schema once per schema version, so what the schema says is what a write
 * must hold, word for word (docs/decisions.md, "Ajv checks records"). Every bad field is named
 * (`allErrors`), in Roost's failure body.
 */

/** The largest record, as its JSON: a record is a document, files go to a file store. */
const MAX_RECORD_BYTES = 256 * 1024;

// ajv-formats is CommonJS: Node's ESM default import is its `module.exports`, typed as the
// module; the plugin is also its own `default` member, which both agree on.
const addFormats = formatsPlugin.default;

/** One Ajv per collections service: compiled validators belong to the services that made them. */
export function recordAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: false });
  addFormats(ajv, ['email', 'uri', 'date', 'date-time', 'uuid']);
  // Roost's keywords of the subset (collection-schema.ts): annotations to Ajv, read by Roost.
  ajv.addKeyword({ keyword: 'x-unique', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-relation', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-file', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-indexes', schemaType: 'array' });
  return ajv;
}

/** The schema as Ajv checks records by it: every object closed to members it does not declare. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // `properties` maps names to schemas; `default` and `enum` are values, kept as they are.
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([n, s]) => [n, closed(s)]));
    } else out[key] = key === 'default' || key === 'enum' ? value : closed(value);
  }
  if (out.type === 'object' && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function reasonOf(error: ErrorObject): [path: string, reason: string] {
  const at = error.instancePath.slice(1).replaceAll('/', '.');
  const under = (name: string) => (at ? `${at}.${name}` : name);
  switch (error.keyword) {
    case 'required':
      return [under(String(error.params.missingProperty)), 'required'];
    case 'additionalProperties':
      return [under(String(error.params.additionalProperty)), 'no such field in the schema'];
    case 'enum':
      return [at, `must be one of ${JSON.stringify(error.params.allowedValues)}`];
    default:
      return [at, error.message ?? 'invalid'];
  }
}

/**
 * Ajv's errors as Roost's field problems, one per field (the first wins), a problem of the whole
 * value at `root`: the records' check here, and the routes of an extension (extend/route-input.ts).
 */
export function ajvFieldProblems(errors: readonly ErrorObject[], root = 'body'): FieldProblem[] {
  const seen = new Set<string>();
  const fields: FieldProblem[] = [];
  for (const error of errors) {
    const [path, reason] = reasonOf(error);
    const field = path || root;
    if (!seen.has(field)) fields.push([field, reason]);
    seen.add(field);
  }
  return fields;
}

/** Drops `null` members, at any depth of objects: null means absent, as in every Roost input. */
function withoutNullMembers(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withoutNullMembers);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNullMembers(v);
  return out;
}

/** The first text in `value` that is not well-formed Unicode (a lone surrogate), by its path. */
function badText(value: unknown, path: string): string | null {
  if (typeof value === 'string') return isWellFormed(value) ? null : path;
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const found = badText(v, path ? `${path}.${k}` : k);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The check of one schema version: refuses what the schema refuses (every field at once), text
 * that is not Unicode, and records over `MAX_RECORD_BYTES`; fills in the schema's defaults.
 * Answers the record's data as it will be stored, and its JSON.
 */
/** A record's data as the schema keeps it, and its JSON text (measured once, stored as it is). */
export interface CheckedData {
  readonly data: Record<string, unknown>;
  readonly json: string;
}

export function recordCheck(ajv: Ajv2020, schema: CollectionSchema): (input: unknown) => CheckedData {
  const validate: ValidateFunction = ajv.compile(closed(schema) as object);
  return (input) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      throw commonErrors.validation_failure({ fields: [['body', 'a record is a JSON object']] });
    const data = withoutNullMembers(input) as Record<string, unknown>;
    const unicode = badText(data, '');
    if (unicode !== null) throw commonErrors.validation_failure({ fields: [[unicode, 'not valid Unicode text']] });
    if (!validate(data)) throw commonErrors.validation_failure({ fields: ajvFieldProblems(validate.errors ?? []) });
    const json = JSON.stringify(data);
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only a long text needs counting.
    if (json.length * 3 > MAX_RECORD_BYTES && Buffer.byteLength(json) > MAX_RECORD_BYTES)
      throw commonErrors.validation_failure({
        fields: [['body', `a record holds at most ${MAX_RECORD_BYTES} bytes of JSON`]],
      });
    return { data, json };
  };
}
