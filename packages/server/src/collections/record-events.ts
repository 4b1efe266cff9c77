import { kindIn } from '../core/events.js';
import type { CollectionState } from './collection-state.js';
import type { CheckedFilter } from './query/index.js';
import { valueAt, valueOfKind } from './query/query-values.js';

/**
 * The events of the collections (core/events.ts), one per committed change of a record, and what
 * live queries read of them (realtime/families/record-family.ts, docs/collections.md "Live
 * queries"). `owner` is the owner before the change where the record is gone: who could read it
 * then is who hears. An update carries the record as it was (`before`), a deletion the record
 * it removed (`record`): after the commit nobody can read them any more, and a subscriber whose
 * view rule or filter matched the record before hears that it left or went.
 */
export const RECORD_EVENTS = ['record.created', 'record.updated', 'record.deleted'] as const;

/**
 * The most bytes of a record's JSON an event carries. Events cross processes in NOTIFY payloads
 * of less than 8000 bytes (core/events.ts `MESSAGE_BYTES`, storage/change-feed.ts); a record
 * may hold 256 KiB. A larger record is carried as its system fields and the fields its
 * collection's `view` rule reads, so that who may see it is still decided exactly.
 */
const CARRY_BYTES = 6000;

/** A record as an event carries it: whole, or (`fields` present) only the data fields named there. */
export interface CarriedRecord {
  id: string;
  owner: string | null;
  created: string;
  updated: string;
  data: Record<string, unknown>;
  /** Present when the record was too large: the data fields carried; the others are unknown. */
  fields?: string[];
}

type RecordEventOf<K> = { kind: K; collection: string; id: string; owner: string | null };
// One entry per kind, each with its own `kind` literal, so that a union of them narrows by `kind`.
type RecordEvents = {
  'record.created': RecordEventOf<'record.created'>;
  'record.updated': RecordEventOf<'record.updated'> & { before?: CarriedRecord };
  'record.deleted': RecordEventOf<'record.deleted'> & { record?: CarriedRecord };
};

declare module '../core/events.js' {
  interface RoostEvents extends RecordEvents {
    /**
     * A collection was made, changed or removed (its definition is in the database): the other
     * processes on the same database read it again (collections-service.ts).
     */
    'collection.changed': { kind: 'collection.changed'; collection: string };
  }
}

export type RecordEvent = RecordEvents[(typeof RECORD_EVENTS)[number]];

/** Whether an event is a record's (a type guard: core/events.ts `kindIn`). */
export const isRecordEvent = kindIn(RECORD_EVENTS);

/** A record as record-ops.ts reads it. */
interface Stored {
  id: string;
  owner: string | null;
  created: string;
  updated: string;
  data: Record<string, unknown>;
}

/**
 * The event of a committed change of `record` (for an update or a deletion: the record as it was
 * before), told by record-ops.ts.
 */
export function recordEvent(kind: RecordEvent['kind'], state: CollectionState, record: Stored): RecordEvent {
  const { id, owner } = record;
  const collection = state.name;
  if (kind === 'record.created') return { kind, collection, id, owner };
  if (kind === 'record.updated') return { kind, collection, id, owner, before: carried(record, state) };
  return { kind, collection, id, owner, record: carried(record, state) };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function carried(record: Stored, state: CollectionState): CarriedRecord {
  if (bytes(record.data) <= CARRY_BYTES) return record;
  const view = state.ruleFilters.view;
  const fields = view ? [...fieldsRead(view)].filter((f) => Object.hasOwn(record.data, f)) : [];
  const data: Record<string, unknown> = {};
  for (const field of fields) data[field] = record.data[field];
  const { id, owner, created, updated } = record;
  // Fields a rule reads are small in practice; if not, the record is carried bare and only
  // administrators (and an empty rule) hear of it.
  if (bytes(data) > CARRY_BYTES) return { id, owner, created, updated, data: {}, fields: [] };
  return { id, owner, created, updated, data, fields };
}

type Node = CheckedFilter['root'];
type Comparison = Extract<Node, { type: 'compare' }>;
type Ref = Extract<Comparison['left'], { type: 'field' }>['ref'];
/** A relation followed by a filter: the relation field's path and the collection it names. */
export type Hop = Ref['hops'][number];

function refsOf(node: Node, out: Ref[] = []): Ref[] {
  if (node.type !== 'compare') {
    refsOf(node.left, out);
    refsOf(node.right, out);
    return out;
  }
  for (const operand of [node.left, node.right]) if (operand.type === 'field') out.push(operand.ref);
  return out;
}

/** The data fields (top-level names) a checked filter reads of the record; system fields are always carried. */
export function fieldsRead(checked: CheckedFilter): ReadonlySet<string> {
  const names = new Set<string>();
  for (const ref of refsOf(checked.root)) {
    const first = ref.hops[0]?.path[0] ?? (ref.system ? undefined : ref.path[0]);
    if (first !== undefined) names.add(first);
  }
  return names;
}

/** The relation chains a checked filter follows (`author.org.name`: two hops), for loading related records. */
export function relationChains(checked: CheckedFilter): ReadonlyArray<readonly Hop[]> {
  return refsOf(checked.root).flatMap((ref) => (ref.hops.length > 0 ? [ref.hops] : []));
}

/** The id a relation field of `data` holds (as filter-match.ts reads it), or null. */
export function relationId(data: Readonly<Record<string, unknown>>, hop: Hop): string | null {
  const id = valueOfKind('text', valueAt(data, hop.path));
  return typeof id === 'string' ? id : null;
}
