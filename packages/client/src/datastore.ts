import type {
  ItemAddress,
  ItemInput,
  ItemQuery,
  ItemsAnswer,
  ItemsPage,
  KeyQuery,
  KeysPage,
  NewItemAnswer,
  OneItemAnswer,
  ItemOwnersAnswer,
  RemoveItemAnswer,
  SetItemAnswer,
  Value,
} from './datastore-types.js';
import type { CallOptions, ConnectorOptions } from './options.js';
import type { AllowedAnswer, PermissionChange, PermissionsAnswer, PingAnswer } from './shared-types.js';
import { Connector } from './connector.js';

/** Options of a write: `owner` creates the items for another user (needs the `setOwner` permission). */
export type WriteOptions<T> = CallOptions<T> & { owner?: string };

/** One item: a key, or `{key}` / `{id}` with an optional `owner` filter. */
export type OneItem = string | { key: string; owner?: string } | { id: number; owner?: string };

/** Items: one (a key) or several (a list of keys, or an {@link ItemAddress}). */
export type Items = string | string[] | ItemAddress;

/**
 * A data store, `/<store>/api/<operation>`: one method per operation (docs/datastore.md).
 * Writes are all or nothing: when one item of a call is refused, nothing of the call is stored
 * and the promise rejects (`error.fields` names the item, e.g. `['items.1.value', 'invalid']`).
 *
 * @example
 * const data = datastore('data', { baseUrl, token });
 * await data.newItem('color', 'blue');
 * const { value } = await data.getItem('color');
 */
export class DataStore extends Connector {
  constructor(
    readonly name: string,
    options: ConnectorOptions,
  ) {
    super(options);
  }

  #call<T>(operation: string, values: object, call?: CallOptions<T>): Promise<T> {
    return this.transport.call(operation, `/${this.name}/api/${operation}`, values, call);
  }

  // Items

  /** One item by key or id: its fields, and `items` with it. A missing one rejects with 404 `item_not_found`. */
  getItem(item: OneItem, call?: CallOptions<OneItemAnswer>): Promise<OneItemAnswer>;
  /** Several items: `items`, the found ones in the asked order (missing ones are left out). */
  getItem(items: string[] | ItemAddress, call?: CallOptions<ItemsAnswer>): Promise<ItemsAnswer>;
  getItem(items: Items, call?: CallOptions<never>): Promise<OneItemAnswer | ItemsAnswer> {
    return this.#call('getItem', address(items), call);
  }

  /** Create an item; rejects with 409 `item_exists` when the key exists. */
  newItem(key: string, value: Value, call?: WriteOptions<NewItemAnswer>): Promise<NewItemAnswer>;
  /** Create items, all or nothing. */
  newItem(items: ItemInput | ItemInput[], call?: WriteOptions<NewItemAnswer>): Promise<NewItemAnswer>;
  newItem(
    first: string | ItemInput | ItemInput[],
    second?: Value | WriteOptions<NewItemAnswer>,
    third?: WriteOptions<NewItemAnswer>,
  ): Promise<NewItemAnswer> {
    return this.#write('newItem', first, second, third);
  }

  /** Create or replace an item by key. */
  setItem(key: string, value: Value, call?: WriteOptions<SetItemAnswer>): Promise<SetItemAnswer>;
  /** Create or replace items by key, or replace them by id (`{id, value}`), all or nothing. */
  setItem(items: ItemInput | ItemInput[], call?: WriteOptions<SetItemAnswer>): Promise<SetItemAnswer>;
  setItem(
    first: string | ItemInput | ItemInput[],
    second?: Value | WriteOptions<SetItemAnswer>,
    third?: WriteOptions<SetItemAnswer>,
  ): Promise<SetItemAnswer> {
    return this.#write('setItem', first, second, third);
  }

  /** Remove items; `result` counts the removed ones (missing keys are not counted). */
  removeItem(items: Items, call?: CallOptions<RemoveItemAnswer>): Promise<RemoveItemAnswer> {
    return this.#call('removeItem', address(items), call);
  }

  // Listing

  /** A page of items: `{items, start, size, total}`. */
  list(query: ItemQuery = {}, call?: CallOptions<ItemsPage>): Promise<ItemsPage> {
    return this.#call('list', query, call);
  }

  /** A page of keys in key order: `{keys, start, size, total}`. */
  keys(query: KeyQuery = {}, call?: CallOptions<KeysPage>): Promise<KeysPage> {
    return this.#call('keys', query, call);
  }

  // Owners

  /** The owners of items: `{key, owner, id, items}` for one, `{items}` for several. */
  getOwner(items: Items, call?: CallOptions<ItemOwnersAnswer>): Promise<ItemOwnersAnswer> {
    return this.#call('getOwner', address(items), call);
  }

  /** Give items to `newOwner` (a name, email or id); an `owner` in `items` filters by the current owner. */
  setOwner(newOwner: string, items: Items, call?: CallOptions<SetItemAnswer>): Promise<SetItemAnswer> {
    return this.#call('setOwner', { ...address(items), newOwner }, call);
  }

  // Permissions and service

  allowed(permissions: string | string[], call?: CallOptions<AllowedAnswer>): Promise<AllowedAnswer> {
    return this.#call('allowed', { permission: permissions }, call);
  }

  getPermissions(call?: CallOptions<PermissionsAnswer>): Promise<PermissionsAnswer> {
    return this.#call('getPermissions', {}, call);
  }

  setPermissions(
    permissions: PermissionChange | PermissionChange[],
    call?: CallOptions<PermissionsAnswer>,
  ): Promise<PermissionsAnswer> {
    return this.#call('setPermissions', { permissions }, call);
  }

  ping(call?: CallOptions<PingAnswer>): Promise<PingAnswer> {
    return this.#call('ping', {}, call);
  }

  #write<T>(
    operation: string,
    first: string | ItemInput | ItemInput[],
    second: Value | WriteOptions<T> | undefined,
    third: WriteOptions<T> | undefined,
  ): Promise<T> {
    const keyed = typeof first === 'string';
    const { owner, ...call } = (keyed ? third : (second as WriteOptions<T> | undefined)) ?? {};
    const body = keyed
      ? { key: first, value: second, owner }
      : { items: Array.isArray(first) ? first : [first], owner };
    return this.#call(operation, body, call);
  }
}

function address(items: Items): ItemAddress {
  return typeof items === 'string' || Array.isArray(items) ? { key: items } : items;
}
