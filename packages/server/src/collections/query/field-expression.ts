import { type RawBuilder, sql } from 'kysely';
import {
  COLLECTION_NAME_PATTERN,
  type FieldKind,
  NAME_PATTERN,
  recordTable,
  SYSTEM_FIELDS,
  type SystemField,
} from '../collection-fields.js';
import type { FieldRef } from './filter-check.js';

/**
 * The SQL of a field's value (docs/collection-queries.md, "SQL"): one expression per field and
 * database, shared by filters, sorts, cursors and the record tables' indexes. A database uses an
 * expression index only for a query whose expression is the index's own, so nothing else may
 * spell a field's value. Names reach the SQL text only after NAME_PATTERN (no quotes, no dots,
 * no `$`); every value is a parameter.
 */

export type SqlDialect = 'sqlite' | 'postgres';

/** Where a value is: a column, or a path in a JSON document (`data`, or a related record's). */
export type Location =
  | { readonly column: RawBuilder<unknown> }
  | { readonly doc: RawBuilder<unknown>; readonly path: readonly string[] };

/**
 * The expression of the field at `path` (a system field, or a path in `data`) of kind `kind`, on
 * the table under `alias` (none: the bare column names of an index definition).
 * @example fieldExpression('postgres', ['address', 'city'], 'text') // ((data->'address'->>'city') COLLATE "C")
 */
export function fieldExpression(
  dialect: SqlDialect,
  path: readonly string[],
  kind: FieldKind,
  alias?: string,
): RawBuilder<unknown> {
  const system = path.length === 1 && (SYSTEM_FIELDS as readonly string[]).includes(path[0]!);
  const location: Location = system
    ? { column: columnOf(alias, path[0] as SystemField) }
    : { doc: columnOf(alias, 'data'), path };
  return valueSql(dialect, kind, location);
}

/** A column of the table under `alias`. */
function columnOf(alias: string | undefined, column: SystemField | 'data'): RawBuilder<unknown> {
  return sql.raw(alias === undefined ? `"${column}"` : `"${name(alias)}"."${column}"`);
}

/** The value at `location` as `kind` compares it: text and numbers typed on PostgreSQL, JSON for the rest. */
export function valueSql(dialect: SqlDialect, kind: FieldKind, location: Location): RawBuilder<unknown> {
  if ('column' in location) return location.column;
  const { doc, path } = location;
  if (dialect === 'sqlite') return sql`json_extract(${doc}, ${sql.raw(sqlitePath(path))})`;
  const parts = path.map((p) => `'${name(p)}'`);
  if (kind !== 'text' && kind !== 'number' && kind !== 'boolean') return sql`(${doc}->${sql.raw(parts.join('->'))})`;
  const text = sql`${doc}${sql.raw(
    parts
      .slice(0, -1)
      .map((p) => `->${p}`)
      .join(''),
  )}->>${sql.raw(parts.at(-1)!)}`;
  if (kind === 'text') return sql`((${text}) COLLATE "C")`;
  return sql`((${text})::${sql.raw(kind === 'number' ? 'numeric' : 'boolean')})`;
}

/** SQLite's JSON path of `path`: `$."a"."b"`. */
export const sqlitePath = (path: readonly string[]) => `'$${path.map((p) => `."${name(p)}"`).join('')}'`;

/** Alias of the n-th related record's table in a filter's subqueries. */
const relationAlias = (n: number) => `roost_rel${n}`;

/**
 * Where the value of `ref` is, behind its relations: each relation is a correlated subquery on
 * the related collection's table, by id, answering its `data` (or the system column asked for).
 */
export function locationOf(dialect: SqlDialect, ref: FieldRef, alias: string): Location {
  let doc = columnOf(alias, 'data');
  ref.hops.forEach((hop, i) => {
    // The relation's id is in the document before: the filtered record's, or the last related one's.
    const relation = valueSql(dialect, 'text', { doc, path: hop.path });
    const related = relationAlias(i + 1);
    const column = i === ref.hops.length - 1 && ref.system ? (ref.path[0] as SystemField) : 'data';
    const from = sql`${table(hop.collection)} AS ${sql.raw(`"${related}"`)}`;
    doc = sql`(SELECT ${columnOf(related, column)} FROM ${from} WHERE ${columnOf(related, 'id')} = ${relation})`;
  });
  if (ref.system) return { column: ref.hops.length > 0 ? doc : columnOf(alias, ref.path[0] as SystemField) };
  return { doc, path: ref.path };
}

/** The quoted table of `collection`'s records. */
function table(collection: string): RawBuilder<unknown> {
  if (!COLLECTION_NAME_PATTERN.test(collection))
    throw new Error(`not a collection name: ${JSON.stringify(collection)}`);
  return sql.raw(`"${recordTable(collection)}"`);
}

/** `part`, checked to be a name: the one guard between a name and the SQL text. */
function name(part: string): string {
  if (!NAME_PATTERN.test(part)) throw new Error(`not a name: ${JSON.stringify(part)}`);
  return part;
}

/** A value as a parameter compared with a field of `kind` (PostgreSQL: typed, as no context may type it). */
export function paramSql(dialect: SqlDialect, kind: FieldKind, value: unknown): RawBuilder<unknown> {
  // better-sqlite3 binds no booleans; SQLite's JSON functions answer true and false as 1 and 0.
  if (dialect === 'sqlite') return sql`${typeof value === 'boolean' ? Number(value) : value}`;
  const type = kind === 'number' ? 'numeric' : kind === 'boolean' ? 'boolean' : 'text';
  return sql`CAST(${value} AS ${sql.raw(type)})`;
}
