import { type CollectionFields, type Field, fieldAt, NAME_PATTERN, SYSTEM_FIELD_DEFS } from '../collection-fields.js';
import type { FilterAst, Operand, Operator, ScalarOperator } from './filter-ast.js';
import { positionIn, QUERY_LIMITS, queryError } from './query-errors.js';
import { DATE_MACROS, type Mode, type QueryContext, type ValueKind, valueAt, valueOfKind } from './query-values.js';

/**
 * A filter's tree checked against a collection's fields (docs/collection-queries.md, "Types"):
 * every field path resolved (relations followed), every comparison given the mode it compares in.
 * Both compilers (filter-sql.ts, filter-match.ts) read only this.
 */

/** The collections that relation fields name, for following `author.name`. */
export type ResolveCollection = (collection: string) => CollectionFields | undefined;

/** A relation followed: the relation field's path in the collection before, and the target. */
interface Hop {
  readonly path: readonly string[];
  readonly collection: string;
}

/** A field a filter names: in the filtered collection, or behind one or two relations. */
export interface FieldRef {
  readonly hops: readonly Hop[];
  /** In the last collection: a system column (one part) or a path in `data`. */
  readonly path: readonly string[];
  readonly field: Field;
  readonly system: boolean;
}

/** A value known before any record is read: a literal, or a variable read from the context. */
type ConstantValue = string | number | boolean | null | readonly (string | number | boolean)[];

export type CheckedOperand =
  | { readonly type: 'field'; readonly ref: FieldRef }
  | { readonly type: 'constant'; readonly value: (context: QueryContext) => ConstantValue };

export interface CheckedComparison {
  readonly type: 'compare';
  readonly mode: Mode;
  readonly op: ScalarOperator;
  /** `?op`: `left` is the array, compared element by element with `right`. */
  readonly any: boolean;
  readonly left: CheckedOperand;
  readonly right: CheckedOperand;
  /**
   * A side is a `@request.*` variable (the other not the literal `null`): when it is null (nobody
   * signed in, a body without the field), it equals nothing, so `owner = @request.auth.id` never
   * lets an anonymous caller see the records nobody owns. `@request.auth.id = null` still asks.
   */
  readonly unknownWhenNull: boolean;
}

export type CheckedNode =
  | CheckedComparison
  | { readonly type: 'and' | 'or'; readonly left: CheckedNode; readonly right: CheckedNode };

export interface CheckedFilter {
  readonly collection: string;
  readonly root: CheckedNode;
}

/** What a side of a comparison holds, as the checker sees it. */
interface Typed {
  readonly operand: CheckedOperand;
  /** `null` for the literal null; `array` also for `@request.auth.groups`. */
  readonly kind: Field['kind'] | 'null';
  /** A `@request.*` variable (null when nobody is signed in, or the body lacks the field). */
  readonly variable?: boolean;
  readonly items: ValueKind | null;
  readonly name: string;
  readonly at: number;
}

const SCALAR_KINDS: readonly string[] = ['text', 'number', 'boolean'];
const OPERATORS_OF: Readonly<Record<ValueKind, readonly ScalarOperator[]>> = {
  text: ['=', '!=', '>', '>=', '<', '<=', '~', '!~'],
  number: ['=', '!=', '>', '>=', '<', '<='],
  boolean: ['=', '!='],
};

/**
 * Check `ast` against `collection`: unknown fields, operators that do not fit a field's kind and
 * values of the wrong type are `invalid_filter` errors naming the field and the position.
 * @example checkFilter(parseFilter('title ~ "road"'), posts, resolve)
 */
export function checkFilter(
  ast: FilterAst,
  collection: CollectionFields,
  resolve: ResolveCollection,
  text?: string,
): CheckedFilter {
  const where = (at: number) => (text === undefined ? `at offset ${at}` : `at character ${positionIn(text, at)}`);
  const fail = (at: number, what: string): never => {
    throw queryError('invalid_filter', 'filter', `${what} ${where(at)}`);
  };

  function node(ast: FilterAst): CheckedNode {
    if (ast.type !== 'compare') return { type: ast.type, left: node(ast.left), right: node(ast.right) };
    const left = typed(ast.left);
    const right = typed(ast.right);
    return comparison(ast.op, left, right, ast.at);
  }

  function comparison(op: Operator, left: Typed, right: Typed, at: number): CheckedComparison {
    if (op.startsWith('?')) {
      const base = op.slice(1) as ScalarOperator;
      if (left.kind !== 'array' || left.items === null)
        fail(left.at, `${op} needs an array of text, numbers or booleans on its left, not ${left.name}`);
      const items = left.items!;
      if (right.kind === 'null') fail(right.at, `${op} compares elements with a value, not with null`);
      if (right.kind !== items)
        fail(right.at, `cannot compare the elements (${items}) of ${left.name} with ${right.name}`);
      if (!OPERATORS_OF[items].includes(base))
        fail(at, `${op} does not apply to the elements (${items}) of ${left.name}`);
      const unknownWhenNull = false; // any-of: a null list or value already matches nothing
      return {
        type: 'compare',
        mode: items,
        op: base,
        any: true,
        left: left.operand,
        right: right.operand,
        unknownWhenNull,
      };
    }
    const base = op as ScalarOperator;
    if (left.kind === 'null' || right.kind === 'null') {
      if (base !== '=' && base !== '!=') fail(at, `null can only be compared with = or !=, not ${op}`);
      const other = left.kind === 'null' ? right : left;
      const kind = other.kind;
      const mode: Mode =
        kind === 'null' ? 'text' : kind === 'json' ? 'json' : kind === 'array' || kind === 'object' ? 'presence' : kind;
      return {
        type: 'compare',
        mode,
        op: base,
        any: false,
        left: left.operand,
        right: right.operand,
        unknownWhenNull: false,
      };
    }
    for (const side of [left, right])
      if (side.kind === 'array' || side.kind === 'object')
        fail(
          side.at,
          side.kind === 'array'
            ? `${side.name} is an array: compare its elements with ?=, ?!=, ?>, ... or test it with = null`
            : `${side.name} is an object: compare its members (${side.name}.member) or test it with = null`,
        );
    if (left.kind === 'json' || right.kind === 'json') {
      const other = left.kind === 'json' ? right : left;
      if (base !== '=' && base !== '!=') fail(at, `a path into a json field can only be compared with = or !=`);
      if (other.operand.type === 'field' && other.kind === 'json')
        fail(other.at, 'two paths into json fields cannot be compared with each other');
      if (other.operand.type === 'field') fail(other.at, `a path into a json field is compared with values only`);
      const unknownWhenNull = left.variable === true || right.variable === true;
      return {
        type: 'compare',
        mode: 'json',
        op: base,
        any: false,
        left: left.operand,
        right: right.operand,
        unknownWhenNull,
      };
    }
    // The operator first: `n ~ "1"` is wrong for `n` whatever stands on the right.
    for (const side of [left, right])
      if (!OPERATORS_OF[side.kind as ValueKind].includes(base)) fail(at, `${op} does not apply to ${side.name}`);
    if (right.kind !== left.kind) fail(right.at, `cannot compare ${left.name} with ${right.name}`);
    const kind = left.kind as ValueKind;
    const unknownWhenNull = left.variable === true || right.variable === true;
    return {
      type: 'compare',
      mode: kind,
      op: base,
      any: false,
      left: left.operand,
      right: right.operand,
      unknownWhenNull,
    };
  }

  function typed(operand: Operand): Typed {
    const { at } = operand;
    if (operand.type === 'literal') {
      const { value } = operand;
      const kind =
        value === null ? 'null' : typeof value === 'string' ? 'text' : typeof value === 'number' ? 'number' : 'boolean';
      const name = value === null ? 'null' : `${JSON.stringify(value)} (${kind})`;
      return { operand: { type: 'constant', value: () => value }, kind, items: null, name, at };
    }
    if (operand.type === 'variable') return variable(operand.path, at);
    const ref = fieldRef(collection, operand.path, at, []);
    const { field } = ref;
    const items = field.kind === 'array' && field.items && SCALAR_KINDS.includes(field.items.kind) ? field.items : null;
    const shownKind = field.kind === 'array' ? `array of ${items?.kind ?? 'objects'}` : field.kind;
    const name = `${operand.path.join('.')} (${shownKind})`;
    return { operand: { type: 'field', ref }, kind: field.kind, items: (items?.kind as ValueKind) ?? null, name, at };
  }

  function variable(path: readonly string[], at: number): Typed {
    const shown = `@${path.join('.')}`;
    const constant = (kind: Typed['kind'], items: ValueKind | null, value: (c: QueryContext) => ConstantValue) => ({
      operand: { type: 'constant' as const, value },
      kind,
      items,
      variable: first === 'request',
      name: `${shown} (${kind === 'array' ? `array of ${items}` : kind})`,
      at,
    });
    const [first, second, third, ...rest] = path;
    if (path.length === 1 && first !== undefined && Object.hasOwn(DATE_MACROS, first)) {
      const macro = DATE_MACROS[first]!;
      return constant('text', null, (c) => macro(c.now));
    }
    if (first === 'request' && second === 'auth' && rest.length === 0) {
      if (third === 'id' || third === 'name')
        return constant('text', null, (c) => valueOfKind('text', c.auth?.[third]));
      if (third === 'groups') return constant('array', 'text', (c) => listOf('text', c.auth?.groups));
    }
    if (first === 'request' && second === 'body' && third !== undefined) {
      const bodyPath = path.slice(2);
      const field =
        bodyPath.length === 1 && Object.hasOwn(SYSTEM_FIELD_DEFS, third) ? undefined : fieldAt(collection, bodyPath);
      if (!field) return fail(at, `${shown}: ${bodyPath.join('.')} is not a field of ${collection.name}`);
      if (SCALAR_KINDS.includes(field.kind)) {
        const kind = field.kind as ValueKind;
        return constant(kind, null, (c) => valueOfKind(kind, valueAt(c.body, bodyPath)));
      }
      const items = field.items?.kind;
      if (field.kind === 'array' && items !== undefined && SCALAR_KINDS.includes(items)) {
        const kind = items as ValueKind;
        return constant('array', kind, (c) => listOf(kind, valueAt(c.body, bodyPath)));
      }
      return fail(at, `${shown} is ${article(field.kind)}, which filters cannot compare`);
    }
    return fail(
      at,
      `unknown variable ${shown} (known: @request.auth.id, @request.auth.name, @request.auth.groups, ` +
        '@request.body.<field>, @now, @todayStart, @todayEnd, @yesterday, @tomorrow)',
    );
  }

  function fieldRef(current: CollectionFields, path: readonly string[], at: number, hops: Hop[]): FieldRef {
    for (const part of path)
      if (!NAME_PATTERN.test(part)) fail(at, `${JSON.stringify(part)} is not a field name (at most 63 characters)`);
    for (let i = 1; i <= path.length; i++) {
      const prefix = path.slice(0, i);
      const field = fieldAt(current, prefix);
      const shown = [...hops.flatMap((h) => h.path), ...prefix].join('.');
      if (!field) return fail(at, `unknown field ${shown} in ${current.name}`);
      const system = i === 1 && Object.hasOwn(SYSTEM_FIELD_DEFS, prefix[0]!);
      if (i === path.length) return { hops, path: prefix, field, system };
      if (field.kind === 'json') return { hops, path, field: fieldAt(current, path)!, system: false };
      if (field.kind === 'object') continue;
      if (field.kind !== 'text' || field.relation === null)
        return fail(at, `${shown} is ${article(field.kind)}: it has no member ${path[i]}`);
      if (field.relation === 'users')
        return fail(at, `${shown} names an account: relations to users cannot be followed, only compared as ids`);
      if (hops.length >= QUERY_LIMITS.relationHops)
        return fail(at, `${shown}: a path may follow at most ${QUERY_LIMITS.relationHops} relations`);
      const target = resolve(field.relation);
      if (!target) return fail(at, `${shown} names the collection ${field.relation}, which does not exist`);
      return fieldRef(target, path.slice(i), at, [...hops, { path: prefix, collection: target.name }]);
    }
    return fail(at, 'a field name expected');
  }

  return { collection: collection.name, root: node(ast) };
}

function listOf(kind: ValueKind, value: unknown): readonly (string | number | boolean)[] | null {
  if (!Array.isArray(value)) return null;
  // Elements of another kind are left out: they could equal nothing of this kind.
  return value.map((v) => valueOfKind(kind, v)).filter((v) => v !== null);
}

const article = (kind: string) => (kind === 'array' || kind === 'object' ? `an ${kind}` : `a ${kind} field`);
