/**
 * The order of a page of records, as the server sorts it (docs/collection-queries.md "Sort"), for
 * the live list (records-controller.ts) to place a record that changed: null is the least value,
 * numbers compare as numbers, booleans false before true, text by Unicode code point (not locale
 * order); `id` ends every order, ascending unless named; without a sort, `-created,-id`.
 */

type Compare = (a: object, b: object) => number;

/** The sort as `list` takes it: one text (`-priority,title`) or a list of fields. */
export function recordOrder(sort: string | readonly string[] | undefined): Compare {
  const named = (typeof sort === 'string' ? sort.split(',') : (sort ?? [])).map((f) => f.trim()).filter(Boolean);
  const fields = (named.length > 0 ? named : ['-created', '-id']).map((field) => ({
    path: field.replace(/^[-+]/, '').split('.'),
    descending: field.startsWith('-'),
  }));
  if (!fields.some((f) => f.path.length === 1 && f.path[0] === 'id')) fields.push({ path: ['id'], descending: false });
  return (a, b) => {
    for (const { path, descending } of fields) {
      const order = compareValues(valueAt(a, path), valueAt(b, path));
      if (order !== 0) return descending ? -order : order;
    }
    return 0;
  };
}

function valueAt(record: object, path: readonly string[]): unknown {
  let value: unknown = record;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value ?? null;
}

function compareValues(a: unknown, b: unknown): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  // Values of another type than the schema's: an order, not the server's (it stores none such).
  return String(typeof a).localeCompare(typeof b);
}

/**
 * Text by code point, as SQLite's BINARY over UTF-8 and PostgreSQL's `COLLATE "C"`: UTF-16 code
 * units order the same except a surrogate pair against U+E000–U+FFFF, decided at the first difference.
 */
function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
  }
  return a.length - b.length;
}
