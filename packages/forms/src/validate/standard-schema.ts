/* The Standard Schema v1 interface (https://standardschema.dev), copied as the spec asks
   implementers to do instead of depending on a package. zod, valibot and ArkType implement it. */

/** A schema implementing Standard Schema v1. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1Props<Input, Output>;
}

/** The `~standard` property of a Standard Schema. */
interface StandardSchemaV1Props<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardSchemaV1Result<Output> | Promise<StandardSchemaV1Result<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/** The outcome of a Standard Schema validation. */
type StandardSchemaV1Result<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/**
 * Runs any Standard Schema and returns the value or the issue messages.
 *
 * @example
 * await runStandardSchema(z.string().min(3), 'ab'); // { ok: false, messages: ['Too small: ...'] }
 */
export async function runStandardSchema(
  schema: StandardSchemaV1,
  value: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; messages: string[] }> {
  const result = await schema['~standard'].validate(value);
  if (result.issues) return { ok: false, messages: result.issues.map((i) => i.message) };
  return { ok: true, value: result.value };
}

/**
 * True when the value implements Standard Schema v1.
 *
 * @example
 * isStandardSchema(z.string()); // true
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}
