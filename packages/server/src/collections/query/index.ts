/**
 * The query language of collections (docs/collection-queries.md): filters parsed, checked against
 * a collection's fields, compiled to SQL for SQLite and PostgreSQL or evaluated in memory with
 * the same answers; sorts and keyset cursors.
 */
import type { CollectionFields } from '../collection-fields.js';
import { type CheckedFilter, checkFilter, type ResolveCollection } from './filter-check.js';
import { parseFilter } from './filter-parser.js';

export type { FilterAst, Operand, Operator } from './filter-ast.js';
export { printFilter } from './filter-ast.js';
/** @public Syntax alone, and the check alone: prepareFilter does both. */
export { parseFilter } from './filter-parser.js';
export type { CheckedFilter, ResolveCollection } from './filter-check.js';
/** @public */
export { checkFilter } from './filter-check.js';
export { filterSql } from './filter-sql.js';
export { compileMatcher, constantAnswer, matchesFilter } from './filter-match.js';
/** @public The types of the API's parameters, for its callers. */
export type { FilterSqlOptions } from './filter-sql.js';
/** @public */
export type { LookupRecord } from './filter-match.js';
/** @public */
export type { Sort, SortKey } from './sort.js';
export { fieldExpression, type SqlDialect } from './field-expression.js';
export { compareRecords, parseSort, sortSql } from './sort.js';
/** @public */
export { DEFAULT_SORT } from './sort.js';
export { afterCursorSql, cursorOf } from './cursor.js';
export { QUERY_LIMITS, queryError, queryErrors } from './query-errors.js';
export type { QueryContext, StoredRecord } from './query-values.js';

/**
 * Parse and check a filter's text in one step (errors carry character positions of `text`).
 * @example const checked = prepareFilter('status = "open"', posts, (name) => collections.get(name))
 */
export function prepareFilter(text: string, collection: CollectionFields, resolve: ResolveCollection): CheckedFilter {
  return checkFilter(parseFilter(text), collection, resolve, text);
}
