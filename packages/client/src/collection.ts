import type {
  AnyCollections,
  AnyRecord,
  BatchOperation,
  BatchResults,
  Expanded,
  ExpandPaths,
  RecordQuery,
  RecordBase,
  RecordData,
  RecordMap,
  RecordOperation,
  RecordPage,
  RecordPatch,
} from './collection-types.js';
import { Connector } from './connector.js';
import type { CallOptions, ConnectorOptions } from './options.js';
import type { LiveRecordEvent, LiveReloadEvent, Realtime, SubscribeOptions } from './realtime.js';
import type { Transport } from './transport.js';

/** A collection's name as the server allows them (docs/collections.md), so it is one path segment. */
const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,40}$/;

export function checkCollectionName(name: unknown): string {
  if (typeof name !== 'string' || !COLLECTION_NAME.test(name))
    throw new TypeError('a collection name is 1-41 characters of a-z, 0-9 and _, starting with a letter');
  return name;
}

/** What a live query is told: a change of a record it matches (or that left it), or `reload`. */
export type RecordChange<R = AnyRecord> = LiveRecordEvent<R> | LiveReloadEvent;

/** Options of `live`: the connector's stream is used unless another `realtime()` is given to share. */
export interface LiveQueryOptions extends SubscribeOptions {
  realtime?: Realtime;
}

/** The topic of a live query: `records/<collection>`, narrowed by a URL-encoded filter. */
function recordTopic(collection: string, filterText?: string): string {
  const narrowed = filterText !== undefined && filterText.trim() !== '';
  return `records/${collection}${narrowed ? `?filter=${encodeURIComponent(filterText)}` : ''}`;
}

const expandText = (paths: ExpandPaths) => (typeof paths === 'string' ? paths : paths.join(','));

/** The query string of a page: the server's parameter names, `sort` fields joined by commas. */
function pageQuery(query: RecordQuery<AnyRecord>): string {
  const params = new URLSearchParams();
  if (query.filter !== undefined && query.filter.trim() !== '') params.set('filter', query.filter);
  if (query.sort !== undefined) params.set('sort', typeof query.sort === 'string' ? query.sort : query.sort.join(','));
  if (query.perPage !== undefined) params.set('perPage', String(query.perPage));
  if (query.cursor != null) params.set('cursor', query.cursor);
  if (query.total) params.set('total', 'true');
  if (query.expand !== undefined) params.set('expand', expandText(query.expand));
  const text = params.toString();
  return text ? `?${text}` : '';
}

const PATH_BATCH = '/api/collections/batch';

/** The writes of a batch, as `/api/collections/batch` takes them. */
function batchCall<T>(transport: Transport, operations: readonly object[], call?: CallOptions<T>): Promise<T> {
  if (!Array.isArray(operations)) throw new TypeError('a batch is a list of operations');
  return transport.settle('records_batch', call, async () => {
    const body = { operations };
    const answer = await transport.restRequest<{ results: T }>('records_batch', 'POST', PATH_BATCH, body, call);
    return answer.results;
  });
}

/**
 * A collection's records, `/api/collections/<name>/records` (docs/collections.md): one method per
 * route, resolving with the record or page the server answers and rejecting with `RoostError`
 * (a write the schema refuses: 422 `validation_failure` with every bad field in `error.fields`).
 * `R` is the record's type, from `roost types`.
 *
 * @example
 * const posts = collection<PostsRecord>('posts', { baseUrl, token });
 * const { items, next } = await posts.list({ filter: filter('status = {:s}', { s: 'open' }), sort: '-priority' });
 */
export class Collection<R extends RecordBase = AnyRecord> extends Connector {
  readonly #realtime: () => Realtime;

  constructor(
    readonly name: string,
    options: ConnectorOptions,
    /** The stream `live` uses unless given one: shared by the collections of one connector. */
    realtime: () => Realtime,
  ) {
    super(options);
    this.#realtime = realtime;
  }

  /** The live stream `live` uses unless given another (shared by a `collections()` connector's collections). */
  get realtime(): Realtime {
    return this.#realtime();
  }

  #path(id?: string): string {
    const base = `/api/collections/${this.name}/records`;
    if (id === undefined) return base;
    if (typeof id !== 'string' || id === '') throw new TypeError('a record id is a non-empty string');
    return `${base}/${encodeURIComponent(id)}`;
  }

  /** A page of records; pass its `next` as `cursor` for the one after. */
  list(
    query: RecordQuery<R> & { expand: ExpandPaths },
    call?: CallOptions<RecordPage<R & Expanded>>,
  ): Promise<RecordPage<R & Expanded>>;
  list(query?: RecordQuery<R>, call?: CallOptions<RecordPage<R>>): Promise<RecordPage<R>>;
  list(query: RecordQuery<R> = {}, call?: CallOptions<RecordPage<R>>): Promise<RecordPage<R>> {
    return this.transport.rest('records_list', 'GET', `${this.#path()}${pageQuery(query)}`, undefined, call);
  }

  /** One record; 404 `record_not_found` when there is none (or the `view` rule hides it). */
  get(id: string, call: CallOptions<R & Expanded> & { expand: ExpandPaths }): Promise<R & Expanded>;
  get(id: string, call?: CallOptions<R>): Promise<R>;
  get(id: string, call?: CallOptions<R> & { expand?: ExpandPaths }): Promise<R> {
    const { expand, ...options } = call ?? {};
    const query = expand === undefined ? '' : `?${new URLSearchParams({ expand: expandText(expand) })}`;
    return this.transport.rest('records_get', 'GET', `${this.#path(id)}${query}`, undefined, options);
  }

  /** Makes a record (its owner is the caller) and answers it as stored, defaults filled in. */
  create(data: RecordData<R>, call?: CallOptions<R>): Promise<R> {
    return this.transport.rest('records_create', 'POST', this.#path(), data, call);
  }

  /** Changes the fields given (`null` removes one); the whole record is checked again. */
  update(id: string, patch: RecordPatch<R>, call?: CallOptions<R>): Promise<R> {
    return this.transport.rest('records_merge', 'PATCH', this.#path(id), patch, call);
  }

  /** Replaces the record's fields with `data`. */
  replace(id: string, data: RecordData<R>, call?: CallOptions<R>): Promise<R> {
    return this.transport.rest('records_replace', 'PUT', this.#path(id), data, call);
  }

  /** Deletes the record. */
  delete(id: string, call?: CallOptions<null>): Promise<null> {
    return this.transport.rest('records_delete', 'DELETE', this.#path(id), undefined, call);
  }

  /** Several writes of this collection, all or nothing: each one's record, null for a deletion. */
  batch(operations: readonly RecordOperation<R>[], call?: CallOptions<(R | null)[]>): Promise<(R | null)[]> {
    if (!Array.isArray(operations)) throw new TypeError('a batch is a list of operations');
    return batchCall(
      this.transport,
      operations.map((op) => ({ collection: this.name, ...op })),
      call,
    );
  }

  /**
   * Hears the changes of the records that `query.filter` matches and the `view` rule lets the
   * caller see, as they commit (docs/collections.md "Live queries"). Returns the function that stops.
   *
   * @example
   * const stop = posts.live({ filter: 'status = "open"' }, (change) => {
   *   if (change.event === 'reload') reloadAll();
   *   else if (change.left || change.event === 'record.deleted') remove(change.id);
   *   else show(change.record);
   * });
   */
  live(
    query: Pick<RecordQuery<R>, 'filter'>,
    onChange: (change: RecordChange<R>) => void,
    options: LiveQueryOptions = {},
  ): () => void {
    const { realtime = this.#realtime(), ...subscribe } = options;
    return realtime.subscribe(
      recordTopic(this.name, query.filter),
      (event) => onChange(event as RecordChange<R>),
      subscribe,
    );
  }
}

/**
 * The collections of one Roost, typed by the map `roost types` writes (`Collections`): each
 * `collection(name)` is typed by its record, and a batch may write several collections. Its
 * collections share one live stream.
 *
 * @example
 * import type { Collections } from './roost-types';
 * const db = collections<Collections>({ baseUrl, token });
 * const page = await db.collection('posts').list({ sort: '-priority' }); // page.items: PostsRecord[]
 */
export class CollectionsConnector<C extends RecordMap<C> = AnyCollections> extends Connector {
  readonly #collections = new Map<string, Collection<RecordBase>>();
  #realtime: Realtime | undefined;

  constructor(
    options: ConnectorOptions,
    readonly makeRealtime: (options: ConnectorOptions) => Realtime,
  ) {
    super(options);
  }

  /** The live stream of these collections, made on first use, with the same options (and token). */
  get realtime(): Realtime {
    this.#realtime ??= this.makeRealtime(this.options);
    return this.#realtime;
  }

  /** The collection `name`, the same object each time. */
  collection<N extends keyof C & string>(name: N): Collection<C[N]> {
    let found = this.#collections.get(name);
    if (!found) {
      found = new Collection(checkCollectionName(name), this.options, () => this.realtime);
      this.#collections.set(name, found);
    }
    return found as Collection<C[N]>;
  }

  /** Writes of several collections, all or nothing (at most 100): each one's record, null for a deletion. */
  batch<const Ops extends readonly BatchOperation<C>[]>(
    operations: Ops,
    call?: CallOptions<BatchResults<C, Ops>>,
  ): Promise<BatchResults<C, Ops>> {
    return batchCall(this.transport, operations, call);
  }
}
