/**
 * The schemas of an extension's route (extend/routes.ts): its input checked by a Standard Schema
 * (zod, valibot, arktype, ...) or a JSON Schema (Ajv, draft 2020-12), failures as Roost's field
 * problems; both as JSON Schema for `/openapi.json`.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { z } from 'zod';
import { ajvFieldProblems } from '../collections/index.js';
import { commonErrors, type FieldProblem } from '../core/errors.js';
import { parseInput } from '../core/validation.js';

/**
 * A Standard Schema (standardschema.dev, v1), the part Roost reads. The spec asks libraries that
 * accept one to copy its types rather than depend on a package; zod 4 implements it, and its
 * `jsonSchema` member (Standard JSON Schema) is what documents it.
 */
export interface StandardSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
    readonly jsonSchema?: {
      readonly input: (options: { target: string }) => Record<string, unknown>;
      readonly output: (options: { target: string }) => Record<string, unknown>;
    };
  };
}
type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/** A JSON Schema, as a plain object (`{ type: 'object', properties: { ... } }`). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** What a route's `input` or `answer` may be. */
export type RouteSchema = StandardSchema | JsonSchema;

/** What the handler gets for a schema: the Standard Schema's output, a JSON Schema's object. */
export type InputOf<S> =
  S extends StandardSchema<infer O> ? O : S extends JsonSchema ? Record<string, unknown> : undefined;

const isStandard = (schema: RouteSchema): schema is StandardSchema =>
  typeof (schema as StandardSchema)['~standard']?.validate === 'function';

// ajv-formats is CommonJS (as in collections/record-validator.ts).
const addFormats = formatsPlugin.default;

/**
 * The Ajv of one app's routes: strict, so that a misspelt keyword stops the start instead of
 * checking nothing; with `coerce`, the text of a query string becomes the numbers and lists
 * the schema asks for (`?limit=5`, `?tag=a`), as a body's JSON needs no coercion.
 */
function routeAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    useDefaults: true,
    strict: true,
    allowUnionTypes: true,
    coerceTypes: coerce ? 'array' : false,
  });
  addFormats(ajv, ['email', 'uri', 'date', 'date-time', 'uuid']);
  return ajv;
}

/** One input check: the values as the handler gets them, or the `validation_failure` at the fields. */
export type InputCheck = (values: Record<string, unknown>) => Promise<unknown>;

/**
 * The check of an input schema, made once at start (a JSON Schema Ajv refuses throws here).
 * A zod schema is read as every Roost input is (core/validation.ts `parseInput`: null means
 * absent, the same reasons); another Standard Schema by its issues' messages.
 */
export function inputCheck(schema: RouteSchema, where: 'query' | 'body', ajv: () => Ajv2020): InputCheck {
  if (schema instanceof z.ZodType) return async (values) => parseInput(schema, values);
  if (isStandard(schema)) {
    const validate = schema['~standard'].validate;
    return async (values) => {
      const result = await validate(values);
      if (result.issues) throw commonErrors.validation_failure({ fields: issueProblems(result.issues, where) });
      return result.value;
    };
  }
  const validate: ValidateFunction = ajv().compile(schema);
  return async (values) => {
    if (!validate(values))
      throw commonErrors.validation_failure({ fields: ajvFieldProblems(validate.errors ?? [], where) });
    return values;
  };
}

/** The two Ajv of one app's routes, each made when a route first needs it. */
export function routeAjvs(): { query: () => Ajv2020; body: () => Ajv2020 } {
  let query: Ajv2020 | undefined;
  let body: Ajv2020 | undefined;
  return { query: () => (query ??= routeAjv(true)), body: () => (body ??= routeAjv(false)) };
}

function issueProblems(
  issues: Extract<StandardResult<unknown>, { issues: unknown }>['issues'],
  root: string,
): FieldProblem[] {
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const issue of issues) {
    const path = (issue.path ?? []).map((part) => String(typeof part === 'object' ? part.key : part));
    const field = path.length ? path.join('.') : root;
    if (!seen.has(field)) out.push([field, issue.message]);
    seen.add(field);
  }
  return out;
}

/**
 * A schema as JSON Schema for `/openapi.json`: as written, or from a Standard Schema's
 * Standard JSON Schema member (the input side for an input, the output side for an answer);
 * a library without one documents "any value".
 */
export function documentedSchema(schema: RouteSchema, side: 'input' | 'output'): Record<string, unknown> {
  if (!isStandard(schema)) return structuredClone(schema) as Record<string, unknown>;
  const convert = schema['~standard'].jsonSchema?.[side];
  if (!convert) return {};
  const { $schema: _dialect, ...json } = convert({ target: 'draft-2020-12' });
  return json;
}
