import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import type { EventBus } from '../core/events.js';
import { type HookRunner, NO_HOOKS } from '../core/hooks.js';
import { isRoostError } from '../core/errors.js';
import { backendGrants } from '../core/grants.js';
import type { Principal } from '../core/permissions.js';
import type { Dialect } from '../storage/database.js';
import { queryContext, ruleCompiler } from './collection-access.js';
import { collectionDefinitions } from './collection-definitions.js';
import { readSchema, type CollectionSchema } from './collection-schema.js';
import type { Rules } from './collection-rules.js';
import type { CollectionState } from './collection-state.js';
import { collectionErrors } from './collections-errors.js';
import { collectionsRepo } from './collections-repo.js';
import type { CollectionTables, RecordRow } from './collection-tables-schema.js';
import { syncIndexes } from './record-indexes.js';
import { checkedId, recordOps, recordView, type RecordView, type RecordWrite } from './record-ops.js';
import { batchInput, definitionInput, recordQueryInput, recordReadInput } from './collections-inputs.js';
import { parseInput } from '../core/validation.js';
import { collectionName } from '../core/config-parts.js';
import { recordAjv } from './record-validator.js';
import { recordsRepo, type StoredRecord } from './records-repo.js';
import { createRecordCache } from './record-cache.js';
import { listRecords, type RecordPage } from './record-list.js';
import { expandRecords, parseExpand } from './record-expand.js';
import type { ReferenceLookups } from './record-references.js';
import { parseSelection, selectFrom } from './record-selection.js';

/**
 * The collections (issue 39): records with typed fields, each collection described by one JSON
 * Schema. Typed operations for every caller (the routes of http/routes/collection-routes.ts, the
 * pages, an embedding program); each checks the collection's rule for the caller, and
 * administrators (core/grants.ts `backendGrants`) define the collections.
 */

export interface CollectionsDeps {
  db: Kysely<unknown>;
  /** Where reads that may be a little stale run (storage/replica-reads.ts); `db` when absent. */
  reads?: Kysely<unknown>;
  dialect: Dialect;
  clock: Clock;
  config: Config;
  events: EventBus;
  /** The accounts and files that relation and file fields name (record-references.ts). */
  lookups: ReferenceLookups;
  /** The team's hooks on records (record-hooks.ts, docs/hooks.md); none by default. */
  hooks?: HookRunner;
}

/** A collection as administrators see it. */
export interface CollectionInfo {
  name: string;
  schema: CollectionSchema;
  rules: Rules;
  version: number;
  created: string;
  updated: string;
  records: number;
}

/** One version of a collection's schema and rules, as its history keeps it (`collection_history`). */
export interface CollectionVersion {
  version: number;
  schema: Record<string, unknown>;
  rules: Rules;
  /** When it was made (ISO 8601). */
  changedAt: string;
  /** The administrator's user id; null for the configuration file. */
  changedBy: string | null;
}

/** The most writes one batch holds. */
const MAX_BATCH = 100;

/**
 * A get's `expand` and `fields`. Most gets ask neither, and nothing is what the schema makes of
 * nothing: its parse was 4 % of a get's CPU (bench/RESULTS.md, seventeenth session).
 */
function readInput(query: unknown): { expand?: string | undefined; fields?: string | undefined } {
  if (typeof query === 'object' && query !== null) {
    let empty = true;
    for (const _key in query) empty = false;
    if (empty) return {};
  }
  return parseInput(recordReadInput, query);
}

export function createCollections(deps: CollectionsDeps) {
  const { dialect } = deps;
  // One process owns a SQLite database: records it reads may be kept (record-cache.ts).
  const cache =
    dialect === 'sqlite' && deps.config.recordCacheBytes > 0
      ? createRecordCache(deps.config.recordCacheBytes, deps.config.users.sessionCacheSeconds * 1000, deps.clock)
      : null;
  const records = recordsRepo(deps.db as Kysely<Record<string, RecordRow>>, dialect, cache);
  // Pages and gets on a replica (docs/scaling.md, "Read replicas"): no record cache there.
  const readRecords =
    deps.reads && deps.reads !== deps.db
      ? recordsRepo(deps.reads as Kysely<Record<string, RecordRow>>, dialect, null)
      : records;
  const repo = collectionsRepo(deps.db as Kysely<CollectionTables>);
  const definitions = collectionDefinitions({
    ajv: recordAjv(),
    clock: deps.clock,
    definitions: repo,
    records,
    indexes: (repo, state) => syncIndexes(repo, state, dialect),
    declared(name) {
      const options = deps.config.collections[name];
      const read = options && readSchema(name, options.schema);
      return read?.ok ? read.value.fields : undefined;
    },
  });
  const resolve = (name: string) => definitions.states.get(name)?.fields;
  const stateOf = (name: string): CollectionState => {
    const state = definitions.states.get(name);
    if (!state) throw collectionErrors.unknown_collection({ fields: [['collection', 'no such collection']] });
    return state;
  };
  const ops = recordOps({
    repo: records,
    readRepo: readRecords,
    dialect,
    clock: deps.clock,
    events: deps.events,
    compile: ruleCompiler(() => deps.clock.now()),
    collection: stateOf,
    exists: (name) => definitions.states.has(name),
    moved: (state) => definitions.moved(state),
    lookups: deps.lookups,
    hooks: deps.hooks,
  });
  /**
   * What a read's `expand` and `fields` ask (record-expand.ts, record-selection.ts), checked
   * before the query; `shape` then puts the related records in and keeps the fields asked.
   */
  const answerShape = (principal: Principal, state: CollectionState, input: { expand?: string; fields?: string }) => {
    const expand = parseExpand(input.expand, state, (name) => definitions.states.get(name));
    const selection = parseSelection(input.fields, state);
    if (expand.length === 0 && selection === null) return null;
    return async (views: RecordView[]): Promise<RecordView[]> => {
      const sources = {
        records: (c: string, ids: readonly string[]) => ops.viewable(principal, c, ids),
        users: deps.lookups.users,
      };
      if (expand.length) await expandRecords(views, expand, sources);
      return selection ? views.map((view) => selectFrom(view, selection) as RecordView) : views;
    };
  };
  const hooks = deps.hooks ?? NO_HOOKS;
  /**
   * The records as sent, after the `record.answer` hooks (record-hooks.ts). Callers ask
   * `hooks.has('record.answer')` first: without a hook, the views go as they are, without the
   * promise of an async call.
   */
  const answered = async (principal: Principal, collection: string, views: RecordView[]): Promise<RecordView[]> => {
    const shaped: RecordView[] = [];
    for (const view of views) {
      const context = { point: 'record.answer' as const, caller: principal, collection, input: view };
      shaped.push((await hooks.before('record.answer', context)).input);
    }
    return shaped;
  };
  const answeredOne = async (principal: Principal, collection: string, view: RecordView) =>
    hooks.has('record.answer') ? ((await answered(principal, collection, [view]))[0] as RecordView) : view;
  /** A get's view: shaped as its query asks, then through the `record.answer` hooks if there are any. */
  const viewOf = async (
    principal: Principal,
    collection: string,
    record: StoredRecord,
    shape: ReturnType<typeof answerShape>,
  ): Promise<RecordView> => {
    const view = shape ? ((await shape([recordView(record)]))[0] as RecordView) : recordView(record);
    return hooks.has('record.answer') ? answeredOne(principal, collection, view) : view;
  };
  /**
   * Gets' answers as JSON text, by the stored record they were written from. On SQLite a get whose view
   * rule needs no condition reads the record cache (record-cache.ts), the same object each time while it is
   * kept, and writing the answer each time (the view's Object.assign, JSON.stringify, the garbage they
   * leave) was a third of a get's instructions (bench/RESULTS.md, "Clear of the edge"). Weak: a text
   * goes with its record once the cache lets it go, and a write makes a new record object. Not counted
   * in the cache's bytes: at most about half as much again (docs/configuration.md, `recordCacheBytes`).
   */
  const answerTexts = cache ? new WeakMap<StoredRecord, string>() : null;
  // Another process on the same database made, changed or removed a collection: read it again.
  deps.events.on('collection.changed', (event) => {
    if (!event.local) void definitions.reload(event.collection).catch(() => {});
  });
  const administer = (principal: Principal) => backendGrants(principal).require('administer');
  const infoOf = async (state: CollectionState): Promise<CollectionInfo> => ({
    name: state.name,
    schema: state.schema,
    rules: state.rules,
    version: state.version,
    created: state.created,
    updated: state.updated,
    // A collection's list and get (administrators) count on a replica too (docs/scaling.md, "Read replicas").
    records: await readRecords.count(state.name),
  });

  return {
    /** Reads the collections kept, then makes or changes those of the configuration to match it. */
    async open(): Promise<void> {
      await definitions.load();
      for (const [name, options] of Object.entries(deps.config.collections)) {
        try {
          await definitions.define(
            { name, schema: options.schema, rules: options.rules, renames: options.renames },
            null,
            'either',
          );
        } catch (err) {
          // The start stops with what to fix, one problem a line (records that would not fit, schema paths).
          if (!isRoostError(err)) throw err;
          const lines = err.fields.map(([field, reason]) => `\n  - ${field}: ${reason}`).join('');
          throw new Error(`collections.${name} of the configuration: ${err.message}${lines}`, { cause: err });
        }
      }
    },
    /** The collections' names, in name order. */
    names: (): string[] => [...definitions.states.keys()].sort(),
    state: (name: string): CollectionState | undefined => definitions.states.get(name),

    async collections(caller: Principal): Promise<CollectionInfo[]> {
      administer(caller);
      return Promise.all([...definitions.states.values()].map(infoOf));
    },
    async describe(caller: Principal, name: string): Promise<CollectionInfo> {
      administer(caller);
      return infoOf(stateOf(name));
    },
    /** Makes a collection (`create`) or changes one (`change`): a new version, its records migrated. */
    async define(caller: Principal, name: string, input: unknown, mode: 'create' | 'change'): Promise<CollectionInfo> {
      administer(caller);
      const definition = { name: parseInput(collectionName, name), ...parseInput(definitionInput, input) };
      // A webhook names its service by name alone (realtime/webhooks.ts): one name, one service.
      if (Object.hasOwn(deps.config.dataStores, name) || Object.hasOwn(deps.config.fileStores, name))
        throw collectionErrors.collection_exists({ fields: [['name', 'a data or file store has this name']] });
      const state = await definitions.define(definition, caller.userId, mode);
      deps.events.emit({ kind: 'collection.changed', collection: state.name });
      return infoOf(state);
    },
    /** Every version of a collection's schema and rules, oldest first. */
    async history(caller: Principal, name: string): Promise<CollectionVersion[]> {
      administer(caller);
      stateOf(name);
      return (await repo.history(name)).map((row) => ({
        version: row.version,
        schema: JSON.parse(row.schema) as Record<string, unknown>,
        rules: JSON.parse(row.rules) as Rules,
        changedAt: row.changed_at,
        changedBy: row.changed_by,
      }));
    },
    async drop(caller: Principal, name: string): Promise<void> {
      administer(caller);
      await definitions.drop(name);
      deps.events.emit({ kind: 'collection.changed', collection: name });
    },

    create: async (principal: Principal, collection: string, data: unknown) =>
      answeredOne(
        principal,
        collection,
        (await ops.write(principal, collection, { action: 'create', data })) as RecordView,
      ),
    async get(principal: Principal, collection: string, id: string, query: unknown = {}): Promise<RecordView> {
      const shape = answerShape(principal, stateOf(collection), readInput(query));
      return viewOf(principal, collection, await ops.stored(principal, collection, checkedId(id)), shape);
    },
    /**
     * A get's answer as JSON text, as `get` answers it (the route sends it as it is). Without `expand`,
     * `fields` or a `record.answer` hook, a record of the record cache is written once (`answerTexts`).
     */
    async getText(principal: Principal, collection: string, id: string, query: unknown = {}): Promise<string> {
      const shape = answerShape(principal, stateOf(collection), readInput(query));
      const record = await ops.stored(principal, collection, checkedId(id));
      if (!answerTexts || shape || hooks.has('record.answer'))
        return JSON.stringify(await viewOf(principal, collection, record, shape));
      let text = answerTexts.get(record);
      if (text === undefined) {
        text = JSON.stringify(recordView(record));
        answerTexts.set(record, text);
      }
      return text;
    },
    /** `merge`: the fields given replace those of the record (null removes one); `replace`: the whole data. */
    update: async (principal: Principal, collection: string, id: string, data: unknown, how: 'merge' | 'replace') => {
      const action = how === 'merge' ? 'update' : 'replace';
      const view = (await ops.write(principal, collection, { action, id: checkedId(id), data })) as RecordView;
      return answeredOne(principal, collection, view);
    },
    remove: async (principal: Principal, collection: string, id: string) =>
      void (await ops.write(principal, collection, { action: 'delete', id: checkedId(id) })),
    /** Writes of one or several collections, all or nothing (`{ operations: [...] }`). */
    async batch(principal: Principal, input: unknown): Promise<Array<RecordView | null>> {
      const operations = parseInput(batchInput, input).operations;
      if (operations.length > MAX_BATCH)
        throw collectionErrors.too_many_operations({ fields: [['operations', `at most ${MAX_BATCH}`]] });
      const writes = operations.map((op) => {
        stateOf(op.collection);
        const write: RecordWrite =
          op.action === 'create'
            ? { action: 'create', data: op.data }
            : op.action === 'delete'
              ? { action: 'delete', id: checkedId(op.id) }
              : { action: op.action, id: checkedId(op.id), data: op.data };
        return { collection: op.collection, op: write };
      });
      return ops.batch(principal, writes);
    },
    async list(principal: Principal, collection: string, query: unknown): Promise<RecordPage> {
      const state = stateOf(collection);
      const access = ops.listAccess(principal, collection);
      const input = parseInput(recordQueryInput, query);
      const shape = answerShape(principal, state, input);
      const context = queryContext(principal, null, deps.clock.now());
      const page = await listRecords(readRecords, state, access, input, { dialect, context, resolve });
      if (shape) page.items = await shape(page.items);
      if (hooks.has('record.answer')) page.items = await answered(principal, collection, page.items);
      return page;
    },
    /** The collection of that name, or the `unknown_collection` failure (live queries' topics). */
    stateOf,
    /**
     * A record as stored, whatever the rules: read once per event for every subscriber and
     * webhook, each checked after (realtime/families/record-family.ts); undefined when gone.
     */
    peek: (collection: string, id: string) => records.get(collection, id),
  };
}

export type Collections = ReturnType<typeof createCollections>;
