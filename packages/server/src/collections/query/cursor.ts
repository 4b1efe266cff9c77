import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { fieldExpression, paramSql, type SqlDialect } from './field-expression.js';
import { QUERY_LIMITS, queryError } from './query-errors.js';
import { storableText, type StoredRecord, valueOfKind } from './query-values.js';
import { neverNull, printSort, type Sort, type SortKey, sortValue } from './sort.js';

/**
 * Keyset cursors (docs/collection-queries.md, "Paging"): a cursor carries the sort values of the
 * last record of a page, so the next page is "the records after these values" whatever was written
 * meanwhile, and costs an index range instead of an OFFSET. It is opaque to callers (base64url of
 * JSON) but not secret: it holds only values of fields the caller could read in that record.
 */

/**
 * The cursor after `record` in `sort`.
 * @example const next = cursorOf(sort, page.at(-1))
 */
export function cursorOf(sort: Sort, record: StoredRecord): string {
  const values = sort.keys.map((key) => valueOfKind(key.kind, sortValue(key, record)));
  return Buffer.from(JSON.stringify([sort.collection, printSort(sort), ...values])).toString('base64url');
}

/** The sort values a cursor carries, checked against `sort`: a malformed or foreign one is `invalid_cursor`. */
function cursorValues(sort: Sort, cursor: string): (string | number | boolean | null)[] {
  const fail = (why: string): never => {
    throw queryError('invalid_cursor', 'cursor', why);
  };
  if (cursor.length > QUERY_LIMITS.cursorLength || !/^[A-Za-z0-9_-]+$/.test(cursor))
    fail('not a cursor of this service (base64url text, at most 4096 characters)');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return fail('not a cursor of this service');
  }
  if (!Array.isArray(parsed) || parsed.length !== sort.keys.length + 2) return fail('not a cursor of this sort');
  const [collection, signature, ...values] = parsed as unknown[];
  if (collection !== sort.collection || signature !== printSort(sort))
    fail('made for another collection or sort: start again without a cursor');
  return sort.keys.map((key, i) => {
    const value = values[i];
    const fits = value === null ? key.path.join('.') !== 'id' : valueOfKind(key.kind, value) === value;
    if (!fits || (typeof value === 'string' && !storableText(value))) fail('not a cursor of this sort');
    return value as string | number | boolean | null;
  });
}

/**
 * The predicate "after the cursor in `sort`" for the table under `alias`: for some key, the keys
 * before it equal the cursor's and it comes later (ascending: greater, or not null after a null;
 * descending: less, or null after a value).
 * @example .where(afterCursorSql(sort, cursor, 'sqlite', 't'))
 */
export function afterCursorSql(sort: Sort, cursor: string, dialect: SqlDialect, alias: string): RawBuilder<SqlBool> {
  const values = cursorValues(sort, cursor);
  const expr = (key: SortKey) => fieldExpression(dialect, key.path, key.kind, alias);
  const equal = (key: SortKey, value: unknown) =>
    value === null
      ? sql<SqlBool>`${expr(key)} IS NULL`
      : sql<SqlBool>`${expr(key)} = ${paramSql(dialect, key.kind, value)}`;
  const branches: RawBuilder<SqlBool>[] = [];
  sort.keys.forEach((key, i) => {
    const value = values[i];
    let later: RawBuilder<SqlBool> | undefined;
    if (!key.descending)
      later =
        value === null
          ? sql<SqlBool>`${expr(key)} IS NOT NULL`
          : sql<SqlBool>`${expr(key)} > ${paramSql(dialect, key.kind, value)}`;
    else if (value !== null)
      later = sql<SqlBool>`(${expr(key)} < ${paramSql(dialect, key.kind, value)} OR ${expr(key)} IS NULL)`;
    if (!later) return; // nothing comes after a null in a descending key: nulls are last
    const before = sort.keys.slice(0, i).map((k, j) => equal(k, values[j]));
    branches.push(sql<SqlBool>`(${sql.join([...before, later], sql` AND `)})`);
  });
  if (branches.length === 0) return sql<SqlBool>`false`;
  const after = sql<SqlBool>`(${sql.join(branches, sql` OR `)})`;
  // Every branch has the first key at or past the cursor's value. Said alone, it is a range of an
  // index that starts with that key (the default order's `created`, never null), where an OR of
  // branches is none: PostgreSQL walked from the first record to the cursor, a deep page as slow
  // as all the pages before it.
  const [first] = sort.keys;
  const value = values[0];
  if (!first || value === null || value === undefined || !neverNull(first)) return after;
  const bound = paramSql(dialect, first.kind, value);
  return sql<SqlBool>`(${expr(first)} ${sql.raw(first.descending ? '<=' : '>=')} ${bound} AND ${after})`;
}
