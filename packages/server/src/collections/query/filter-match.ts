import type { SystemField } from '../collection-fields.js';
import type { CheckedFilter, CheckedNode, CheckedOperand, FieldRef } from './filter-check.js';
import {
  anyOf,
  compareValues,
  isNull,
  type QueryContext,
  type StoredRecord,
  unknownResult,
  valueAt,
  valueOfKind,
} from './query-values.js';

/**
 * The in-memory evaluator of checked filters: the same answers as the SQL of filter-sql.ts, for
 * live queries that test every change against every subscription. A filter is compiled once per
 * context into a tree of closures, so a test of a record allocates nothing but what the
 * comparison functions of query-values.ts do.
 */

/** A record of another collection by id, for relation paths (`author.name`); undefined if none. */
export type LookupRecord = (collection: string, id: string) => StoredRecord | undefined;

type Test = (record: StoredRecord) => boolean;
type Read = (record: StoredRecord) => unknown;

/**
 * A function telling whether a record matches `checked` for `context`.
 * @example const matches = compileMatcher(checked, context, lookup); changes.filter((c) => matches(c.record))
 */
export function compileMatcher(checked: CheckedFilter, context: QueryContext, lookup: LookupRecord): Test {
  function node(n: CheckedNode): Test {
    if (n.type !== 'compare') {
      const left = node(n.left);
      const right = node(n.right);
      return n.type === 'and' ? (r) => left(r) && right(r) : (r) => left(r) || right(r);
    }
    const { mode, op } = n;
    if (n.unknownWhenNull && (nullConstant(n.left) || nullConstant(n.right))) {
      const result = unknownResult(op);
      return () => result;
    }
    const left = read(n.left);
    const right = read(n.right);
    if (n.any) return (r) => anyOf(mode, op, left(r), right(r));
    return (r) => compareValues(mode, op, left(r), right(r));
  }

  const nullConstant = (operand: CheckedOperand) => operand.type === 'constant' && isNull(operand.value(context));

  function read(operand: CheckedOperand): Read {
    if (operand.type === 'constant') {
      const value = operand.value(context);
      return () => value;
    }
    return reader(operand.ref, lookup);
  }

  return node(checked.root);
}

/**
 * The answer of a filter that reads no record (its comparisons are of constants alone, such as
 * `@request.auth.id != null`) for `context`; null when it reads one. Such a rule is decided once
 * for a caller instead of being a condition of every query (collection-access.ts).
 * @example constantAnswer(prepareFilter('@request.auth.id != null', posts, resolve), context) // true when signed in
 */
export function constantAnswer(checked: CheckedFilter, context: QueryContext): boolean | null {
  if (readsRecord(checked.root)) return null;
  return compileMatcher(checked, context, () => undefined)(NO_RECORD);
}

function readsRecord(node: CheckedNode): boolean {
  if (node.type !== 'compare') return readsRecord(node.left) || readsRecord(node.right);
  return node.left.type === 'field' || node.right.type === 'field';
}

/** What a filter of constants is tested on: it reads nothing of it. */
const NO_RECORD: StoredRecord = Object.freeze({ id: '', owner: null, created: '', updated: '', data: {} });

/**
 * Whether `record` matches `checked` (compiles the filter each call: use compileMatcher for many).
 * @example matchesFilter(checked, record, { auth: null, body: null, now: new Date() }, () => undefined)
 */
export function matchesFilter(
  checked: CheckedFilter,
  record: StoredRecord,
  context: QueryContext,
  lookup: LookupRecord,
): boolean {
  return compileMatcher(checked, context, lookup)(record);
}

/** The value of `ref` in a record: behind its relations, null where a related record is missing. */
function reader(ref: FieldRef, lookup: LookupRecord): Read {
  const last: Read = ref.system ? (r) => r[ref.path[0] as SystemField] : (r) => valueAt(r.data, ref.path);
  if (ref.hops.length === 0) return last;
  const hops = ref.hops;
  return (record) => {
    let current: StoredRecord | undefined = record;
    for (const hop of hops) {
      const id = valueOfKind('text', valueAt(current.data, hop.path));
      current = typeof id === 'string' ? lookup(hop.collection, id) : undefined;
      if (!current) return null;
    }
    return last(current);
  };
}
