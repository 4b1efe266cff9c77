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

export { DataStore, FileStore, Users, Realtime };
export type {
  LiveAccountEvent,
  LiveEvent,
  LiveFileEvent,
  LiveHandler,
  LiveItemEvent,
  LiveReloadEvent,
  SubscribeOptions,
} from './realtime.js';
export { RoostError, isRoostError, type FieldProblem, type RoostErrorInit, type TransportCode } from './errors.js';
export type { CallOptions, ConnectorOptions, RoostOptions, TokenSource } from './options.js';
export type * from './shared-types.js';
export type * from './users-types.js';
export type * from './datastore-types.js';
export type * from './filestore-types.js';
export type { Items, OneItem, WriteOptions as ItemWriteOptions } from './datastore.js';
export type { EntryFields, ReadOptions, ReadResults, WriteOptions as FileWriteOptions } from './filestore.js';
