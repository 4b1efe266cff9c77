/**
 * JSON Schemas of the original protocol's answers, for /openapi.json (http/openapi.ts). Only
 * getItem's and list's are also used to write the answers (fast-json-stringify); the others
 * document them. The answers themselves are made by the tables beside this file.
 */

type Schema = Record<string, unknown>;

/** An object with these members, all present. */
export const answerOf = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  ...extra,
});

const integer = { type: 'integer' };
const number = { type: 'number' };
const string = { type: 'string' };
const boolean = { type: 'boolean' };
const strings = { type: 'array', items: string };

/** `{result: true}`: what a command answers. */
export const DONE_ANSWER = answerOf({ result: { const: true } });
/** `{result: 1}` of `ping` (and of the file store's `setItem`). */
export const ONE_ANSWER = answerOf({ result: { const: 1 } });

export const PAGE_MEMBERS = { start: integer, size: integer, total: integer };

export const ALLOWED_ANSWER = answerOf(
  { result: { ...boolean, description: 'Whether every permission asked about is held.' } },
  { additionalProperties: { ...boolean, description: 'Each permission asked about, by name.' } },
);

export const PERMISSIONS_ANSWER = answerOf({
  result: { const: true },
  permissions: { type: 'array', items: answerOf({ permission: string, groups: strings }) },
});

/** `result` counts what a write reached; each `success` entry ends with its place in the call, from 1. */
export const writesAnswer = (description: string, entry: Schema[]): Schema =>
  answerOf({
    result: integer,
    success: {
      type: 'array',
      items: { type: 'array', description, prefixItems: entry, minItems: entry.length, maxItems: entry.length },
    },
  });

const FAILURE_MEMBERS = {
  code: { ...string, description: 'Stable, snake_case; every code is listed in docs/errors.md.' },
  message: { ...string, description: 'A sentence for people.' },
  messages: { type: 'array', description: 'The message, then each `[field, reason]` pair.' },
  invalid: {
    type: 'array',
    description: 'Each field problem as `[field, reason]`.',
    items: { type: 'array', items: string, minItems: 2, maxItems: 2 },
  },
};

/**
 * The failure body (http/error-handler.ts `failureBody`, docs/errors.md): `result: false` and a
 * `code`. Some failures add members (the sign-in challenge of `second_factor_required`), so others
 * are allowed.
 */
export const FAILURE_ANSWER = answerOf(
  { result: { const: false }, ...FAILURE_MEMBERS },
  { description: 'The failure body of every operation (docs/errors.md).' },
);

/**
 * The failures of an operation whose original answered some of them with a count of nothing
 * (http/protocol/wire-values.ts `failingWith`): the failure body with `result: 0` and `more`
 * members, or the usual `result: false` where the refusal came before the operation ran (the
 * origin check, a malformed body) or for another reason.
 */
export const countFailureAnswer = (description: string, more: Record<string, Schema> = {}): Schema => ({
  description: 'The failure body (docs/errors.md), its `result` `false` or `0`.',
  oneOf: [FAILURE_ANSWER, answerOf({ result: { const: 0, description }, ...FAILURE_MEMBERS, ...more })],
});

/** The data store's failed writes: `result: 0, success: []`, as the original answered them. */
export const WRITE_FAILURE_ANSWER = countFailureAnswer('Nothing was written.', {
  success: { type: 'array', maxItems: 0 },
});

/**
 * A success answer that says it has no `code`: every failure body has one, so a client tells
 * the two apart by it, and a generated type reads `code?: never` (openapi-typescript).
 */
function withoutCode(success: Schema): Schema {
  const { properties, anyOf, oneOf } = success as { properties?: Schema; anyOf?: Schema[]; oneOf?: Schema[] };
  if (anyOf) return { ...success, anyOf: anyOf.map(withoutCode) };
  if (oneOf) return { ...success, oneOf: oneOf.map(withoutCode) };
  return { ...success, properties: { ...properties, code: false } };
}

/**
 * The 200 answer of an operation that refuses its values with 200 (the user service, as the
 * original did; http/routes/user-routes.ts `validationStatus`): its success, or the failure body.
 * The two exclude each other by `code` (`withoutCode`), yet this is `anyOf`: Redocly's
 * recommended rules read a `oneOf` as ambiguous where both sides have a boolean `result`
 * (`authenticated`, `allowed`), not seeing `code`. Generated types are the same union.
 */
export const successOrRefusal = (success: object): Schema => ({
  description:
    'Success, or a refusal of the values (`result: false` with a `code`: docs/errors.md). Every refusal has ' +
    '`code` and no success has it.',
  anyOf: [withoutCode(success as Schema), FAILURE_ANSWER],
});

export const SCALARS = { integer, number, string, boolean, strings };
