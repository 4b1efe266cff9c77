import { type RawBuilder, sql } from 'kysely';
import { type CollectionFields, fieldAt, NAME_PATTERN, SYSTEM_FIELD_DEFS } from '../collection-fields.js';
import { fieldExpression, type SqlDialect } from './field-expression.js';
import { positionIn, QUERY_LIMITS, queryError } from './query-errors.js';
import { compareSortValues, type StoredRecord, type ValueKind, valueAt } from './query-values.js';

/**
 * Sorts (docs/collection-queries.md, "Sort"): `-created,title`, fields of text, numbers or
 * booleans, ascending unless `-`. Nulls come first ascending and last descending (null is the
 * least value), the same in SQL and in memory; `id` ends every sort, so the order is total and a
 * keyset cursor (cursor.ts) names one place in it.
 */

export interface SortKey {
  readonly path: readonly string[];
  readonly kind: ValueKind;
  readonly descending: boolean;
}

export interface Sort {
  readonly collection: string;
  /** The keys in order; the last is `id`. */
  readonly keys: readonly SortKey[];
}

/** @public The order of a query that names none: newest first. */
export const DEFAULT_SORT = '-created,-id';

const ITEM = /^([+-]?)([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/;

/**
 * Parse a sort for `collection`: an unknown field, a field that cannot be ordered or a field named
 * twice is `invalid_sort`; more than QUERY_LIMITS.sortFields fields is `sort_too_long`.
 * @example parseSort('-priority,title', posts)
 */
export function parseSort(text: string | undefined, collection: CollectionFields): Sort {
  const source = text === undefined || text.trim() === '' ? DEFAULT_SORT : text;
  const items = source.split(',');
  if (items.length > QUERY_LIMITS.sortFields || source.length > QUERY_LIMITS.filterLength)
    throw queryError('sort_too_long', 'sort', `${items.length} fields, at most ${QUERY_LIMITS.sortFields}`);
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  let offset = 0;
  for (const item of items) {
    const at = offset + item.length - item.trimStart().length;
    offset += item.length + 1;
    const fail = (what: string): never => {
      throw queryError('invalid_sort', 'sort', `${what} at character ${positionIn(source, at)}`);
    };
    const match = ITEM.exec(item.trim());
    if (!match) return fail(`${JSON.stringify(item.trim())} is not a field name with an optional - or +`);
    const name = match[2]!;
    const path = name.split('.');
    if (!path.every((p) => NAME_PATTERN.test(p))) fail(`${JSON.stringify(name)} is not a field name`);
    const field = fieldAt(collection, path);
    if (!field) return fail(`unknown field ${name} in ${collection.name}`);
    if (field.kind !== 'text' && field.kind !== 'number' && field.kind !== 'boolean')
      fail(`${name} is ${field.kind === 'json' ? 'a path into a json field' : `an ${field.kind}`}: it has no order`);
    if (seen.has(name)) fail(`${name} is named twice`);
    seen.add(name);
    keys.push({ path, kind: field.kind as ValueKind, descending: match[1] === '-' });
  }
  if (!seen.has('id')) keys.push({ path: ['id'], kind: 'text', descending: false });
  return { collection: collection.name, keys };
}

/** The sort as text, `id` included: what a cursor carries to tell its sort. */
export const printSort = (sort: Sort): string =>
  sort.keys.map((k) => `${k.descending ? '-' : ''}${k.path.join('.')}`).join(',');

/**
 * The ORDER BY list of `sort` for the table under `alias`, nulls placed as in memory.
 * @example sql`SELECT id FROM records_posts AS t ORDER BY ${sortSql(sort, 'sqlite', 't')}`
 */
export function sortSql(sort: Sort, dialect: SqlDialect, alias: string): RawBuilder<unknown> {
  const terms = sort.keys.map((k) => {
    const nulls = neverNull(k) ? '' : k.descending ? ' NULLS LAST' : ' NULLS FIRST';
    const direction = sql.raw(`${k.descending ? 'DESC' : 'ASC'}${nulls}`);
    return sql`${fieldExpression(dialect, k.path, k.kind, alias)} ${direction}`;
  });
  return sql.join(terms);
}

/**
 * Is the key a system column that is never null (`id`, `created`, `updated`: NOT NULL in
 * records-repo.ts `createTable`)? Its ORDER BY term then says no NULLS place: PostgreSQL reads an
 * ascending index backwards as `DESC NULLS FIRST` only, so `created DESC NULLS LAST` made it
 * sort the whole table for the default order (a million records: a second a page) instead of
 * reading the index of `(created, id)` backwards. The order is the same, there being no nulls.
 */
export function neverNull(key: SortKey): boolean {
  const [first] = key.path;
  return (
    key.path.length === 1 &&
    first !== undefined &&
    Object.hasOwn(SYSTEM_FIELD_DEFS, first) &&
    SYSTEM_FIELD_DEFS[first as keyof typeof SYSTEM_FIELD_DEFS].required
  );
}

/** The value of a sort key in a record (null when missing). */
export function sortValue(key: SortKey, record: StoredRecord): unknown {
  const [first] = key.path;
  if (key.path.length === 1 && first !== undefined && Object.hasOwn(SYSTEM_FIELD_DEFS, first))
    return record[first as keyof typeof SYSTEM_FIELD_DEFS] ?? null;
  return valueAt(record.data, key.path) ?? null;
}

/**
 * The comparator of `sort` for records in memory: the order SQL gives them.
 * @example records.sort(compareRecords(sort))
 */
export function compareRecords(sort: Sort): (a: StoredRecord, b: StoredRecord) => number {
  const keys = sort.keys;
  return (a, b) => {
    for (const key of keys) {
      const c = compareSortValues(key.kind, sortValue(key, a), sortValue(key, b));
      if (c !== 0) return key.descending ? -c : c;
    }
    return 0;
  };
}
