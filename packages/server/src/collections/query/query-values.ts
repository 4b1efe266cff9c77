import type { ScalarOperator } from './filter-ast.js';

/**
 * What a comparison means, defined once (docs/collection-queries.md, "Semantics"): the in-memory
 * evaluator runs these functions, and the SQL compiler folds comparisons of two known values with
 * them, so that the three evaluators cannot drift apart where no database is involved.
 */

/** The kinds a single value of a comparison has. */
export type ValueKind = 'text' | 'number' | 'boolean';
/**
 * How a comparison compares: as text, numbers or booleans; `json` (a path into a `json` field,
 * equal when of the same JSON type and value); `presence` (an array or object tested with null).
 */
export type Mode = ValueKind | 'json' | 'presence';

/** Who asks and when: what `@request.*` and the date macros stand for. */
export interface QueryContext {
  readonly auth: { readonly id: string; readonly name: string; readonly groups: readonly string[] } | null;
  /** The body of a create or update (rules of writes); null elsewhere. */
  readonly body: Readonly<Record<string, unknown>> | null;
  readonly now: Date;
}

/** A record as stored: the system columns and `data`, the object of its fields. */
export interface StoredRecord {
  readonly id: string;
  readonly owner: string | null;
  readonly created: string;
  readonly updated: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export const isNull = (value: unknown): value is null | undefined => value === null || value === undefined;

/**
 * Text order by Unicode code point, as SQLite's BINARY over UTF-8 and PostgreSQL's "C" order it.
 * UTF-16 units order astral characters (surrogates, D800-DFFF) before E000-FFFF; shifting the
 * units of those two ranges past each other gives code point order without decoding.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return shifted(x) - shifted(y);
  }
  return a.length - b.length;
}

const shifted = (unit: number) => (unit < 0xd800 ? unit : unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

/** Lower case for ASCII letters only, as SQLite's lower() and PostgreSQL's lower(x COLLATE "C"). */
const asciiLower = (text: string): string =>
  /[A-Z]/.test(text) ? text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32)) : text;

/** `~`: `haystack` contains `needle`, ASCII letters in either case. The empty text is in every text. */
const containsText = (haystack: string, needle: string): boolean => asciiLower(haystack).includes(asciiLower(needle));

function equal(mode: Mode, a: unknown, b: unknown): boolean {
  if (isNull(a) || isNull(b)) return isNull(a) && isNull(b);
  // A json path's value equals a value of the same JSON type only; objects and arrays equal nothing.
  if (mode === 'json') return typeof a === typeof b && typeof a !== 'object' && a === b;
  return a === b;
}

function order(mode: Mode, a: unknown, b: unknown): number {
  if (mode === 'text') return compareCodePoints(a as string, b as string);
  if (mode === 'number') return (a as number) - (b as number);
  return Number(a) - Number(b);
}

/**
 * The comparison `a op b` in `mode`: `=` is true when both are null or both equal; `!=` its
 * negation; ordering and `~` with a null side are false; `!~` the negation of `~`.
 * @example compareValues('text', '!=', null, 'x') // true
 */
export function compareValues(mode: Mode, op: ScalarOperator, a: unknown, b: unknown): boolean {
  switch (op) {
    case '=':
      return equal(mode, a, b);
    case '!=':
      return !equal(mode, a, b);
    case '~':
      return typeof a === 'string' && typeof b === 'string' && containsText(a, b);
    case '!~':
      return !(typeof a === 'string' && typeof b === 'string' && containsText(a, b));
    default: {
      if (isNull(a) || isNull(b)) return false;
      const c = order(mode, a, b);
      return op === '>' ? c > 0 : op === '>=' ? c >= 0 : op === '<' ? c < 0 : c <= 0;
    }
  }
}

/**
 * A comparison with a `@request.*` variable that is null (filter-check.ts `unknownWhenNull`):
 * the variable equals nothing, so only the negations (`!=`, `!~`) hold.
 */
export const unknownResult = (op: ScalarOperator): boolean => op === '!=' || op === '!~';

/** `list ?op b`: at least one element of `list` compares so with `b`; false for no or a null list. */
export function anyOf(mode: Mode, op: ScalarOperator, list: unknown, b: unknown): boolean {
  if (!Array.isArray(list)) return false;
  for (const element of list) if (compareValues(mode, op, element, b)) return true;
  return false;
}

/** The order of sorts and cursors: null first, then by kind (false before true). */
export function compareSortValues(kind: ValueKind, a: unknown, b: unknown): number {
  if (isNull(a) || isNull(b)) return isNull(a) ? (isNull(b) ? 0 : -1) : 1;
  const c = order(kind, a, b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

/** A stored or given value as `kind`, or null when it is not one (docs: "values of another type"). */
export function valueOfKind(kind: ValueKind, value: unknown): string | number | boolean | null {
  switch (kind) {
    case 'text':
      return typeof value === 'string' && storableText(value) ? value : null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
  }
}

/** Text both databases can hold as a parameter: no NUL, no half of a surrogate pair. */
export const storableText = (text: string): boolean =>
  !text.includes('\u0000') && !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

const DAY_MS = 86_400_000;

/** The date macros: ISO 8601 text in UTC with milliseconds, as `created` and `updated` are. */
export const DATE_MACROS: Readonly<Record<string, (now: Date) => string>> = Object.freeze({
  now: (now: Date) => now.toISOString(),
  todayStart: (now: Date) => `${now.toISOString().slice(0, 10)}T00:00:00.000Z`,
  todayEnd: (now: Date) => `${now.toISOString().slice(0, 10)}T23:59:59.999Z`,
  yesterday: (now: Date) => new Date(now.getTime() - DAY_MS).toISOString(),
  tomorrow: (now: Date) => new Date(now.getTime() + DAY_MS).toISOString(),
});

/** The value at `path` in `value` (objects only), or undefined. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const part of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, part) ? (current as Record<string, unknown>)[part] : undefined;
  }
  return current;
}
