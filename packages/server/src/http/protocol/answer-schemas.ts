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

export const FAILURE_ANSWER = answerOf(
  {
    result: { const: false },
    code: { ...string, description: 'Stable, snake_case; every code is listed in docs/errors.md.' },
    message: { ...string, description: 'A sentence for people.' },
    messages: { type: 'array', description: 'The message, then each `[field, reason]` pair.' },
    invalid: {
      type: 'array',
      description: 'Each field problem as `[field, reason]`.',
      items: { type: 'array', items: string, minItems: 2, maxItems: 2 },
    },
  },
  { description: 'The failure body of every operation (docs/errors.md).' },
);

export const SCALARS = { integer, number, string, boolean, strings };
