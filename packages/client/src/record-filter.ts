/** A value a filter compares with: text, a number, a boolean, null, or a time (as ISO 8601 text). */
export type FilterValue = string | number | boolean | null | Date;

/** `{:name}`, as PocketBase's `pb.filter` writes its placeholders. */
const PLACEHOLDER = /\{:([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** Half of a surrogate pair: text the filter language refuses, as a NUL (docs/collection-queries.md "Syntax"). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A filter with its values written as the filter language's literals (docs/collection-queries.md):
 * each `{:name}` of `template` becomes `params[name]` quoted and escaped, so a value is never read
 * as part of the expression, whatever it holds. A placeholder without a value, or a value that
 * has no literal (NaN, an object, text with a NUL), throws `TypeError`.
 *
 * @example
 * posts.list({ filter: filter('status = {:status} && priority >= {:min}', { status: 'open', min: 2 }) });
 * // status = "open" && priority >= 2
 */
export function filter(template: string, params: Readonly<Record<string, FilterValue>> = {}): string {
  if (typeof template !== 'string') throw new TypeError('a filter template is a string');
  return template.replace(PLACEHOLDER, (_, name: string) => {
    if (!Object.hasOwn(params, name)) throw new TypeError(`the filter has {:${name}} but no value for it`);
    return literal(params[name], name);
  });
}

function literal(value: unknown, name: string): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`{:${name}} is ${value}: a filter takes finite numbers`);
    // JSON's number syntax is the filter language's (`1e+21` included); -0 is written 0.
    return JSON.stringify(value);
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError(`{:${name}} is an invalid Date`);
    return JSON.stringify(value.toISOString());
  }
  if (typeof value === 'string') {
    if (value.includes('\u0000') || LONE_SURROGATE.test(value))
      throw new TypeError(`{:${name}} holds a NUL character or half of a surrogate pair, which a filter cannot`);
    // JSON's escapes (\" \\ \n \uXXXX ...) are the filter language's.
    return JSON.stringify(value);
  }
  throw new TypeError(`{:${name}} is a ${typeof value}: a filter compares text, numbers, booleans, null and Dates`);
}
