import type { Order, Page, Paging } from './shared-types.js';

/** An item's value: a string, or a finite number (it comes back as a number). */
export type Value = string | number;

/**
 * An item of a data store. `timestamp` is float seconds since the
 * epoch; `owner` the owner's name (`""` when the account is gone).
 */
export interface Item {
  key: string;
  value: Value;
  timestamp: number;
  id: number;
  owner: string;
}

/** An item to write: by key, or (`setItem`) by id; `owner` only with the `setOwner` permission. */
export type ItemInput = { key: string; value: Value; owner?: string } | { id: number; value: Value; owner?: string };

/** Existing items by key or id (one or a list), or `items` of `{key}`/`{id}`; `owner` filters by the current owner. */
export interface ItemAddress {
  key?: string | string[];
  id?: number | number[];
  items?: ({ key: string; owner?: string } | { id: number; owner?: string })[];
  owner?: string;
}

/** One asked item: its fields at the top level, and also as a one-element `items`. */
export type OneItemAnswer = Item & { items: Item[] };

/** Several asked items: the found ones, in the asked order. */
export interface ItemsAnswer {
  items: Item[];
}

/** `newItem`: `success` holds `[key, id, timestamp, n]` per stored item. */
export interface NewItemAnswer {
  result: number;
  success: [key: string, id: number, timestamp: number, n: number][];
}

/** `setItem` and `setOwner`: `success` holds `[key or id, timestamp, n]` per item. */
export interface SetItemAnswer {
  result: number;
  success: [keyOrId: string | number, timestamp: number, n: number][];
}

/** `removeItem`: `result` counts the removed items; `success` names them. */
export interface RemoveItemAnswer {
  result: number;
  success: (string | number)[];
}

export interface ItemQuery extends Paging {
  key?: string | string[];
  owner?: string;
  sort?: 'key' | 'value' | 'timestamp';
}

export interface ItemsPage extends Page {
  items: Item[];
}

export interface KeyQuery extends Paging {
  owner?: string;
  order?: Order;
}

export interface KeysPage extends Page {
  keys: string[];
}

export interface ItemOwner {
  key: string;
  owner: string;
  id: number;
}

/** `getOwner`: one asked item at the top level too, as `getItem`. */
export type ItemOwnersAnswer = { items: ItemOwner[] } & Partial<ItemOwner>;
