import type { EventFamily, Listener, Subject, Topic } from '../../core/event-family.js';
import { isRoostError, RoostError } from '../../core/errors.js';
import type { ToldOf } from '../../core/events.js';
import { administers } from '../../core/grants.js';
import { type Principal, refusal } from '../../core/permissions.js';
import {
  type CarriedRecord,
  type CheckedFilter,
  type Collections,
  type CollectionState,
  compileMatcher,
  fieldsRead,
  type Hop,
  isRecordEvent,
  parseFilter,
  prepareFilter,
  queryContext,
  RECORD_EVENTS,
  recordView,
  relationChains,
  relationId,
  type StoredRecord,
} from '../../collections/index.js';
import { invalidTopic } from './topic-text.js';

/**
 * Live queries of the collections (issue 39, item 5; docs/collections.md "Live queries"): topics
 * `records/<collection>` and `records/<collection>?filter=<filter>`, filed by collection. The
 * subject is the record as it is now (`peek`), with the record as it was where the event
 * carries it (collections/record-events.ts): each subscriber hears a change when the record
 * passes the collection's `view` rule for it and its topic's filter, both evaluated in memory
 * (collections/query/filter-match.ts, the same answers as the SQL) by matchers compiled once per
 * subscription and caller. A record that matched before an update and does not now is told as
 * having left (`left: true`, without the record); a deletion is heard by those it matched.
 */

/** A subscription's own filter (null: none), checked and compiled per version of its collection. */
interface LiveQuery {
  readonly text: string | null;
  /** The filter checked against each version of the collection met; null: it no longer fits. */
  readonly versions: WeakMap<CollectionState, Matchers | null>;
}

type Test = (record: StoredRecord) => boolean;
type Related = ReadonlyMap<string, StoredRecord | undefined>;
type Lookup = (collection: string, id: string) => StoredRecord | undefined;
const relatedKey = (collection: string, id: string) => `${collection}\n${id}`;

/**
 * A checked filter or rule, compiled once per caller (a session's principal, replaced when its
 * groups change). One that reads the time (`@now`, `@todayStart`, ...: any `@` but `@request`,
 * a text with an `@` too, to be sure) is compiled per event with the event's time.
 */
class Matchers {
  readonly reads: ReadonlySet<string>;
  readonly chains: ReadonlyArray<readonly Hop[]>;
  readonly #timed: boolean;
  readonly #byPrincipal = new WeakMap<Principal, Test>();
  constructor(
    readonly checked: CheckedFilter,
    text: string,
    readonly lookup: Lookup,
  ) {
    this.reads = fieldsRead(checked);
    this.chains = relationChains(checked);
    this.#timed = /@(?!request\b)/.test(text);
  }

  for(principal: Principal, at: number): Test {
    let test = this.#timed ? undefined : this.#byPrincipal.get(principal);
    if (!test) {
      test = compileMatcher(this.checked, queryContext(principal, null, at), this.lookup);
      if (!this.#timed) this.#byPrincipal.set(principal, test);
    }
    return test;
  }

  /** Whether the test can answer for `record`: every field it reads is carried. */
  answers(record: CarriedRecord | StoredRecord): boolean {
    const fields = 'fields' in record ? record.fields : undefined;
    return fields === undefined || [...this.reads].every((f) => fields.includes(f));
  }
}

/** A topic's text as the API takes it: `records/<collection>`, `?filter=` once (URL-encoded). */
function parseRecordTopic(text: string): { collection: string; filter: string | null } {
  const at = text.indexOf('?');
  const [head, query] = at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
  const [, collection = '', ...rest] = head.split('/');
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(collection)) throw invalidTopic(text, 'names no collection (records/<name>)');
  if (rest.length > 0) throw invalidTopic(text, 'has a path: a record topic narrows with ?filter=');
  if (query === undefined) return { collection, filter: null };
  const params = new URLSearchParams(query);
  const filters = params.getAll('filter');
  if ([...params.keys()].some((k) => k !== 'filter') || filters.length !== 1)
    throw invalidTopic(text, 'may narrow by filter= only, once');
  const filter = filters[0] ?? '';
  if (filter.trim() === '') throw invalidTopic(text, 'has an empty filter: leave ?filter= out to hear every record');
  // Bad syntax is told before any topic is admitted, as bad text is (realtime/topics.ts).
  asTopicFailure(() => parseFilter(filter));
  return { collection, filter };
}

/** A query failure (`invalid_filter`, `filter_too_long`, ...) with its code, named at `topic`. */
function asTopicFailure<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (!isRoostError(err)) throw err;
    const fields = err.fields.map(([, reason]): [string, string] => ['topic', reason]);
    throw new RoostError(err.kind, err.code, err.message, { fields, body: err.body, cause: err });
  }
}

export function recordFamily(collections: Collections): EventFamily {
  const resolve = (name: string) => collections.state(name)?.fields;
  /**
   * The related records of the event being decided, read once in `read`: matchers take a
   * synchronous lookup (collections/query/filter-match.ts), so they are set around each decision.
   */
  let related: Related | null = null;
  const lookup: Lookup = (collection, id) => related?.get(relatedKey(collection, id));
  const withRelated = <T>(records: Related | null, work: () => T): T => {
    related = records;
    try {
      return work();
    } finally {
      related = null;
    }
  };
  const compiled = (filter: string, state: CollectionState) =>
    new Matchers(prepareFilter(filter, state.fields, resolve), filter, lookup);
  /** Each topic's query (the hub hands `viewUnder` the topic it admitted here). */
  const queries = new WeakMap<Topic, LiveQuery>();
  /** The view rule of each version of a collection, compiled (null: `null` or `""`, no expression). */
  const views = new WeakMap<CollectionState, Matchers | null>();
  /**
   * The relation chains the live filters of each collection follow, loaded with each event's
   * record. It only grows, bounded by the relation fields the schemas have (2 hops at most).
   */
  const chains = new Map<string, Map<string, readonly Hop[]>>();
  /** Whether a caller administers, once per principal (a new one when its groups change). */
  const admins = new WeakMap<Principal, boolean>();
  const isAdmin = (principal: Principal) => {
    const known = admins.get(principal);
    if (known !== undefined) return known;
    const admin = administers(principal);
    admins.set(principal, admin);
    return admin;
  };

  function remember(collection: string, matchers: Matchers): void {
    const known = chains.get(collection) ?? new Map<string, readonly Hop[]>();
    chains.set(collection, known);
    for (const chain of matchers.chains)
      known.set(chain.map((h) => `${h.path.join('.')}>${h.collection}`).join('|'), chain);
  }

  function viewOf(state: CollectionState): Matchers | null {
    let matchers = views.get(state);
    if (matchers === undefined) {
      const checked = state.ruleFilters.view;
      matchers = checked ? new Matchers(checked, state.rules.view ?? '', lookup) : null;
      views.set(state, matchers);
    }
    return matchers;
  }

  /** The query's filter for this version of its collection: checked again after a schema change. */
  function filterOf(query: LiveQuery, state: CollectionState): Matchers | null {
    if (query.text === null) return null;
    let matchers = query.versions.get(state);
    if (matchers === undefined) {
      try {
        matchers = compiled(query.text, state);
        remember(state.name, matchers);
      } catch {
        matchers = null; // the filter names what the new schema lacks: it hears nothing until subscribed again
      }
      query.versions.set(state, matchers);
    }
    return matchers;
  }

  /** Reads the records the view rule and the live filters reach from `records`, by relation. */
  async function relatedOf(state: CollectionState, records: ReadonlyArray<StoredRecord | null>) {
    const found = new Map<string, Promise<StoredRecord | undefined>>();
    const all = [...(viewOf(state)?.chains ?? []), ...(chains.get(state.name)?.values() ?? [])];
    if (all.length === 0) return null;
    const peek = (collection: string, id: string) => {
      const key = relatedKey(collection, id);
      let record = found.get(key);
      if (!record) {
        record = collections.state(collection) ? collections.peek(collection, id) : Promise.resolve(undefined);
        found.set(key, record);
      }
      return record;
    };
    const follow = async (from: StoredRecord, chain: readonly Hop[], at: number): Promise<void> => {
      const hop = chain[at];
      const id = hop ? relationId(from.data, hop) : null;
      if (!hop || id === null) return;
      const next = await peek(hop.collection, id);
      if (next && at + 1 < chain.length) await follow(next, chain, at + 1);
    };
    await Promise.all(records.flatMap((record) => (record ? all.map((chain) => follow(record, chain, 0)) : [])));
    const out = new Map<string, StoredRecord | undefined>();
    for (const [key, record] of found) out.set(key, await record);
    return out;
  }

  return {
    name: 'records',
    kinds: RECORD_EVENTS,
    // Webhooks are set per collection, by its name (docs/realtime.md "Webhooks").
    hasService: (service) => collections.state(service) !== undefined,
    services: () => collections.names(),
    serviceOf: (event) => (isRecordEvent(event) ? event.collection : null),
    topic(text) {
      const { collection, filter } = parseRecordTopic(text);
      return {
        async admit(principal) {
          const state = collections.stateOf(collection);
          // A `null` view rule lets administrators only: others are refused as the records' own reads refuse.
          if (state.rules.view === null && !administers(principal)) throw refusal(['sys:authenticated'], principal);
          const query: LiveQuery = { text: filter, versions: new WeakMap() };
          if (filter !== null) {
            const checked = asTopicFailure(() => compiled(filter, state));
            query.versions.set(state, checked);
            remember(collection, checked);
          }
          const place = `records/${collection}`;
          const topic: Topic = {
            place,
            matches: (event) => isRecordEvent(event) && event.collection === collection,
          };
          queries.set(topic, query);
          return topic;
        },
      };
    },
    placeOf: (event) => (isRecordEvent(event) ? `records/${event.collection}` : null),
    async read(event): Promise<Subject | null> {
      if (!isRecordEvent(event)) return null;
      const state = collections.state(event.collection);
      if (!state) return null;
      const before =
        event.kind === 'record.updated'
          ? (event.before ?? null)
          : event.kind === 'record.deleted'
            ? (event.record ?? null)
            : null;
      const now = event.kind === 'record.deleted' ? null : ((await collections.peek(state.name, event.id)) ?? null);
      const found = await relatedOf(state, [now, before]);
      const read = { event, state, now, before, related: found, viewOf, filterOf, queries, withRelated, isAdmin };
      return recordSubject(read);
    },
  };
}

/** What `recordSubject` decides with. */
interface SubjectRead {
  event: ToldOf<(typeof RECORD_EVENTS)[number]>;
  state: CollectionState;
  now: StoredRecord | null;
  before: CarriedRecord | null;
  related: Related | null;
  withRelated<T>(records: Related | null, work: () => T): T;
  isAdmin(principal: Principal): boolean;
  viewOf(state: CollectionState): Matchers | null;
  filterOf(query: LiveQuery, state: CollectionState): Matchers | null;
  queries: WeakMap<Topic, LiveQuery>;
}

/**
 * The subject of a record event: its frames, each made once, and who gets which. A listener
 * hears the record when it passes the view rule and the filter now; else, when the record as
 * it was passed both, that it left (an update) or went (a deletion); else nothing.
 */
function recordSubject(read: SubjectRead): Subject {
  const { event, state, now, before } = read;
  const { kind, id } = event;
  const collection = state.name;
  let current: string | undefined;
  let gone: string | undefined;
  // A deletion carries the record as it was when it was carried whole; `left` never shows the record.
  const whole = before && before.fields === undefined ? before : null;
  const nowData = () => (current ??= JSON.stringify({ event: kind, collection, id, record: now && recordView(now) }));
  const goneData = () =>
    (gone ??= JSON.stringify(
      kind === 'record.deleted'
        ? { event: kind, collection, id, record: whole ? recordView(whole) : undefined }
        : { event: kind, collection, id, left: true },
    ));

  function sees(principal: Principal, admin: boolean, record: StoredRecord): boolean {
    if (admin) return true;
    const rule = state.rules.view;
    if (rule === null) return false;
    const matchers = read.viewOf(state);
    if (!matchers) return true; // `""`: everyone
    return matchers.answers(record) && matchers.for(principal, event.at)(record);
  }

  function wants(principal: Principal, query: LiveQuery | null, record: StoredRecord): boolean {
    if (!query || query.text === null) return true;
    const matchers = read.filterOf(query, state);
    if (!matchers) return false;
    // A record carried in part that the filter cannot be asked of is told (the view rule decided who may).
    return !matchers.answers(record) || matchers.for(principal, event.at)(record);
  }

  function decide({ principal }: Listener, query: LiveQuery | null): string | null {
    const admin = read.isAdmin(principal);
    return read.withRelated(read.related, () => {
      if (now && sees(principal, admin, now) && wants(principal, query, now)) return nowData();
      if (before && sees(principal, admin, before) && wants(principal, query, before)) return goneData();
      return null;
    });
  }

  return {
    viewFor: (listener) => decide(listener, null),
    viewUnder: (listener, topic) => decide(listener, read.queries.get(topic) ?? null),
    body(at) {
      const record = now ?? whole;
      return JSON.stringify({ at, event: kind, collection, id, record: record ? recordView(record) : undefined });
    },
  };
}
