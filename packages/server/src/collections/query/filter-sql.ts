import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { CheckedComparison, CheckedFilter, CheckedNode, CheckedOperand } from './filter-check.js';
import { type Location, locationOf, paramSql, type SqlDialect, sqlitePath, valueSql } from './field-expression.js';
import { anyOf, compareValues, isNull, type Mode, type QueryContext, unknownResult } from './query-values.js';
import type { ScalarOperator } from './filter-ast.js';

/**
 * A checked filter as a parameterized SQL predicate (docs/collection-queries.md, "SQL"). Each
 * comparison means what compareValues (query-values.ts) says; comparisons of two known values are
 * folded by it to `true` or `false`. The predicate is true exactly where the filter is; where the
 * filter is false it is false or NULL, which WHERE treats alike (the language has no negation of a
 * group, so NULL never turns true): wrap it in `coalesce(…, false)` before negating it.
 */

export interface FilterSqlOptions {
  readonly dialect: SqlDialect;
  /** The alias of the filtered collection's table in the query. */
  readonly alias: string;
  readonly context: QueryContext;
}

/** One side of a comparison in SQL: an expression, and its value when it is known. */
interface Side {
  readonly expr: RawBuilder<unknown>;
  readonly location: Location | null;
  readonly known: boolean;
  readonly value: unknown;
}

const TRUE = sql<SqlBool>`true`;
const FALSE = sql<SqlBool>`false`;

/**
 * The predicate of `checked` for a query on its collection's table under `options.alias`.
 * @example db.selectFrom('records_posts as t').selectAll().where(filterSql(checked, { dialect, alias: 't', context }))
 */
export function filterSql(checked: CheckedFilter, options: FilterSqlOptions): RawBuilder<SqlBool> {
  const { dialect, alias, context } = options;

  function node(n: CheckedNode): RawBuilder<SqlBool> {
    if (n.type === 'compare') return comparison(n);
    return sql<SqlBool>`(${node(n.left)} ${sql.raw(n.type === 'and' ? 'AND' : 'OR')} ${node(n.right)})`;
  }

  function side(operand: CheckedOperand, mode: Mode): Side {
    if (operand.type === 'constant') {
      const value = operand.value(context);
      return { expr: param(value, mode), location: null, known: true, value };
    }
    const location = locationOf(dialect, operand.ref, alias);
    return { expr: valueSql(dialect, operand.ref.field.kind, location), location, known: false, value: undefined };
  }

  const param = (value: unknown, mode: Mode) =>
    paramSql(dialect, mode === 'number' || mode === 'boolean' ? mode : 'text', value);

  function comparison(c: CheckedComparison): RawBuilder<SqlBool> {
    const { mode, op } = c;
    if (c.any) {
      const right = side(c.right, mode);
      if (c.left.type === 'constant') {
        const list = c.left.value(context);
        if (right.known) return anyOf(mode, op, list, right.value) ? TRUE : FALSE;
        if (!Array.isArray(list) || list.length === 0) return FALSE;
        const each = list.map((v) =>
          compare(mode, op, { expr: param(v, mode), location: null, known: true, value: v }, right),
        );
        return sql<SqlBool>`(${sql.join(each, sql` OR `)})`;
      }
      return anyElement(locationOf(dialect, c.left.ref, alias), mode, op, right);
    }
    const left = side(c.left, mode);
    const right = side(c.right, mode);
    if (c.unknownWhenNull && ((left.known && isNull(left.value)) || (right.known && isNull(right.value))))
      return unknownResult(op) ? TRUE : FALSE;
    if (left.known && right.known) return compareValues(mode, op, left.value, right.value) ? TRUE : FALSE;
    return compare(mode, op, left, right);
  }

  /** `EXISTS` an element of the array at `location` that compares so with `right`. */
  function anyElement(location: Location, mode: Mode, op: ScalarOperator, right: Side): RawBuilder<SqlBool> {
    if ('column' in location) return FALSE; // no system column is an array
    const { doc, path } = location;
    if (dialect === 'sqlite') {
      const p = sql.raw(sqlitePath(path));
      const element = { expr: sql`"roost_e"."value"`, location: null, known: false, value: undefined };
      // json_each of a scalar (a null array) would answer that scalar as one element.
      const elements = sql`SELECT 1 FROM json_each(${doc}, ${p}) AS "roost_e"`;
      const match = compare(mode, op, element, right);
      return sql<SqlBool>`(json_type(${doc}, ${p}) = 'array' AND EXISTS (${elements} WHERE ${match}))`;
    }
    const array = valueSql(dialect, 'array', location);
    const cast = mode === 'number' ? '::numeric' : mode === 'boolean' ? '::boolean' : ' COLLATE "C"';
    const element = { expr: sql.raw(`("roost_e"."v"${cast})`), location: null, known: false, value: undefined };
    // jsonb_array_elements_text fails on a scalar (a JSON null): only an array gets there.
    const source = sql`jsonb_array_elements_text(CASE WHEN jsonb_typeof(${array}) = 'array' THEN ${array} END)`;
    return sql<SqlBool>`EXISTS (SELECT 1 FROM ${source} AS "roost_e"("v") WHERE ${compare(mode, op, element, right)})`;
  }

  function compare(mode: Mode, op: ScalarOperator, a: Side, b: Side): RawBuilder<SqlBool> {
    if (mode === 'json' || mode === 'presence') {
      const [field, value] = a.known ? [b, a.value] : [a, b.value];
      const equal = mode === 'json' ? jsonEqual(field, value) : nullTest(field);
      return op === '=' ? equal : sql<SqlBool>`NOT coalesce(${equal}, false)`;
    }
    const nullSide = a.known && isNull(a.value) ? b : b.known && isNull(b.value) ? a : undefined;
    if (nullSide) {
      if (op === '=') return sql<SqlBool>`${nullSide.expr} IS NULL`;
      if (op === '!=') return sql<SqlBool>`${nullSide.expr} IS NOT NULL`;
      return op === '!~' ? TRUE : FALSE;
    }
    const bothFields = !a.known && !b.known;
    switch (op) {
      case '=':
        if (bothFields)
          return sql<SqlBool>`${a.expr} ${sql.raw(dialect === 'sqlite' ? 'IS' : 'IS NOT DISTINCT FROM')} ${b.expr}`;
        return sql<SqlBool>`${a.expr} = ${b.expr}`;
      case '!=': {
        if (bothFields)
          return sql<SqlBool>`${a.expr} ${sql.raw(dialect === 'sqlite' ? 'IS NOT' : 'IS DISTINCT FROM')} ${b.expr}`;
        const field = a.known ? b : a;
        return sql<SqlBool>`(${field.expr} IS NULL OR ${a.expr} <> ${b.expr})`;
      }
      case '~':
        return contains(a, b);
      case '!~':
        return sql<SqlBool>`NOT coalesce(${contains(a, b)}, false)`;
      default:
        return sql<SqlBool>`${a.expr} ${sql.raw(op)} ${b.expr}`;
    }
  }

  /** `~`: lower() of SQLite and of PostgreSQL's "C" collation change ASCII letters only. */
  function contains(a: Side, b: Side): RawBuilder<SqlBool> {
    if (dialect === 'sqlite') return sql<SqlBool>`instr(lower(${a.expr}), lower(${b.expr})) > 0`;
    return sql<SqlBool>`strpos(lower(${a.expr} COLLATE "C"), lower(${b.expr} COLLATE "C")) > 0`;
  }

  /** Null or missing, for any kind: PostgreSQL's `->` answers a JSON null as `'null'`, not NULL. */
  function nullTest(field: Side): RawBuilder<SqlBool> {
    if (dialect === 'sqlite' || !field.location || 'column' in field.location)
      return sql<SqlBool>`(${field.expr} IS NULL)`;
    const json = valueSql(dialect, 'json', field.location);
    return sql<SqlBool>`(coalesce(jsonb_typeof(${json}), 'null') = 'null')`;
  }

  /** A json path equal to a value: of the same JSON type and equal (numbers as numbers). */
  function jsonEqual(field: Side, value: unknown): RawBuilder<SqlBool> {
    if (isNull(value)) return nullTest(field);
    const location = field.location;
    if (!location || 'column' in location) return FALSE;
    if (dialect === 'postgres') return sql<SqlBool>`(${field.expr} = CAST(${JSON.stringify(value)} AS jsonb))`;
    const { doc, path } = location;
    const type = sql`json_type(${doc}, ${sql.raw(sqlitePath(path))})`;
    if (typeof value === 'boolean') return sql<SqlBool>`(${type} = ${sql.raw(value ? "'true'" : "'false'")})`;
    const types = sql.raw(typeof value === 'number' ? "('integer', 'real')" : "('text')");
    return sql<SqlBool>`(${type} IN ${types} AND ${field.expr} = ${value})`;
  }

  return node(checked.root);
}
