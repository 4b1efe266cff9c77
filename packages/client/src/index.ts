/**
 * The Roost connector for browsers and Node: `fetch` based, no dependencies. One connector per
 * service, each built from options; one method per operation, resolving with the server's JSON
 * answer and rejecting with {@link RoostError}.
 *
 * @example
 * import { users, datastore, filestore, isRoostError } from '@roost/client';
 * const auth = users({ baseUrl: 'http://127.0.0.1:8080' });
 * await auth.token('alice', 'alice-password-1');
 * const data = datastore('data', { baseUrl: 'http://127.0.0.1:8080', token: auth.options.token });
 */
import { DataStore } from './datastore.js';
import { FileStore } from './filestore.js';
import { checkStoreName, resolveOptions, type RoostOptions } from './options.js';
import { Users } from './users.js';
export { secondFactorChallenge } from './users.js';
import { Realtime } from './realtime.js';
import { checkCollectionName, Collection, CollectionsConnector } from './collection.js';
import type { AnyCollections, AnyRecord, RecordBase, RecordMap } from './collection-types.js';
export { filter, type FilterValue } from './record-filter.js';

/** The interface release the connector speaks. */
export const PROTOCOL_RELEASE = '0.9.1';

/**
 * The connector of the user service. Its name is fixed (`users`): a `name` option throws `TypeError`.
 *
 * @example
 * const auth = users({ baseUrl: 'http://127.0.0.1:8080' });
 */
export function users(options: RoostOptions = {}): Users {
  if (options !== null && typeof options === 'object' && 'name' in options)
    throw new TypeError("the user service is always called 'users': it takes no name option");
  return new Users(resolveOptions(options));
}

/**
 * The connector of the data store `name` (`data` out of the box).
 *
 * @example
 * const data = datastore('data', { baseUrl: 'http://127.0.0.1:8080', token });
 */
export function datastore(name: string, options: RoostOptions = {}): DataStore {
  return new DataStore(checkStoreName(name), resolveOptions(options));
}

/**
 * The connector of the file store `name` (`files` out of the box).
 *
 * @example
 * const files = filestore('files', { baseUrl: 'http://127.0.0.1:8080', token });
 */
export function filestore(name: string, options: RoostOptions = {}): FileStore {
  return new FileStore(checkStoreName(name), resolveOptions(options));
}

/**
 * Live changes: one stream for every subscription made through it (docs/realtime.md). Make one
 * and share it; it opens on the first subscription and closes after the last.
 *
 * @example
 * const live = realtime({ baseUrl: 'http://127.0.0.1:8080', token });
 * const stop = live.subscribe('items/data?prefix=todo/', (change) => console.log(change.event, change));
 */
export function realtime(options: RoostOptions = {}): Realtime {
  return new Realtime(resolveOptions(options));
}

/**
 * The collections of a Roost (docs/collections.md), typed by the `Collections` map that
 * `roost types` writes: `collection(name)` is typed by its record, `batch` writes several
 * collections all or nothing, and their live queries share one stream.
 *
 * @example
 * import type { Collections } from './roost-types';
 * const db = collections<Collections>({ baseUrl: 'http://127.0.0.1:8080', token });
 * const { items } = await db.collection('posts').list({ filter: filter('status = {:s}', { s: 'open' }) });
 */
export function collections<C extends RecordMap<C> = AnyCollections>(
  options: RoostOptions = {},
): CollectionsConnector<C> {
  return new CollectionsConnector<C>(resolveOptions(options), (resolved) => new Realtime(resolved));
}

/**
 * One collection's records, `R` the type of its records (from `roost types`); its live queries
 * have a stream of their own unless given one (`live(query, onChange, { realtime })`).
 *
 * @example
 * const posts = collection<PostsRecord>('posts', { baseUrl: 'http://127.0.0.1:8080', token });
 * const made = await posts.create({ title: 'Road works' });
 */
export function collection<R extends RecordBase = AnyRecord>(name: string, options: RoostOptions = {}): Collection<R> {
  const resolved = resolveOptions(options);
  let stream: Realtime | undefined;
  return new Collection<R>(checkCollectionName(name), resolved, () => {
    stream ??= new Realtime(resolved);
    return stream;
  });
}

export { DataStore, FileStore, Users, Realtime, Collection, CollectionsConnector };
export type {
  LiveAccountEvent,
  LiveEvent,
  LiveFileEvent,
  LiveHandler,
  LiveItemEvent,
  LiveRecordEvent,
  LiveReloadEvent,
  SubscribeOptions,
} from './realtime.js';
export { RoostError, isRoostError, type FieldProblem, type RoostErrorInit, type TransportCode } from './errors.js';
export type { CallOptions, ConnectorOptions, RoostOptions, TokenSource } from './options.js';
export type * from './shared-types.js';
export type * from './users-types.js';
export type * from './datastore-types.js';
export type * from './filestore-types.js';
export type * from './collection-types.js';
export type { LiveQueryOptions, RecordChange } from './collection.js';
export type { Items, OneItem, WriteOptions as ItemWriteOptions } from './datastore.js';
export type {
  DirectUploadOptions,
  EntryFields,
  ReadOptions,
  ReadResults,
  UploadOptions,
  WriteOptions as FileWriteOptions,
} from './filestore.js';
