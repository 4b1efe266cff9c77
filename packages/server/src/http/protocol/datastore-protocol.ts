import type { z } from 'zod';
import { allowedBody, permissionsBody } from './permission-answers.js';
import type { Principal } from '../../core/permissions.js';
import { allowedInput, setPermissionsInput } from '../../core/validation.js';
import { dataStoreErrors, type DataStore, type Item, type WrittenItem } from '../../datastore/index.js';
import {
  ALLOWED_ANSWER,
  answerOf,
  ONE_ANSWER,
  PAGE_MEMBERS,
  PERMISSIONS_ANSWER,
  SCALARS,
  WRITE_FAILURE_ANSWER,
  writesAnswer,
} from './answer-schemas.js';
import { asInput, failingWith, type WireValues } from './wire-values.js';

/**
 * The data store in the original protocol (docs/datastore.md): each
 * operation's name, what it needs, and how its typed call (datastore/datastore-service.ts)
 * answers on the wire. The bodies are the original connectors' contract: they stay byte for
 * byte what they were when the store answered them itself (test/http/datastore-*.test.ts).
 */
export interface DataStoreOperation {
  op: string;
  summary: string;
  /** Changes nothing, so a cross-site cookie request may call it. */
  read?: boolean;
  /** Open only to administrators by default (the API docs list it apart). */
  admin?: boolean;
  /** The input's schema, for the API docs (the store checks its input itself). */
  input?: z.ZodType;
  /** The success answer's JSON schema, for the API docs (answer-schemas.ts). */
  answer: object;
  /** The failures' JSON schema when it is not the usual failure body (a write's `result: 0`), for the API docs. */
  failure?: object;
  /** The schema Fastify writes the answer by (see WRITTEN_BY). */
  serializeBy?: object;
  call(caller: Principal, values: WireValues): Promise<object>;
}

/** The original's item timestamp: float seconds since the epoch (UTC). */
const timestampOf = (item: Pick<Item, 'updated'>) => item.updated / 1000;

/**
 * The owner as answers show it: the user name, as the file store and
 * the original connectors show it; `""` when the account is gone.
 */
const ownerOf = (item: Item) => item.ownerName ?? '';

/** An item on the wire: key, value, timestamp, id and owner (the owner's user name). */
export const itemView = (item: Item) => ({
  key: item.key,
  value: item.value,
  timestamp: timestampOf(item),
  id: item.id,
  owner: ownerOf(item),
});

const ownerView = (item: Item) => ({ key: item.key, owner: ownerOf(item), id: item.id });

const absent = (v: unknown) => v === undefined || v === null;

/** A single key or id (not a list, not `items`) answers as one item; anything else as `items`. */
const isSingle = (values: WireValues) =>
  absent(values.items) &&
  !Array.isArray(values.key) &&
  !Array.isArray(values.id) &&
  (absent(values.key) || absent(values.id));

/**
 * One asked item answers as itself and as a one-item `items` list (the seed and the API docs
 * show the bare item, the Python connector reads `items`); a missing one is a 404 at the field
 * that named it. Anything else answers `items`, absent ones left out.
 */
function itemsAnswer<T extends object>(values: WireValues, items: readonly Item[], view: (item: Item) => T) {
  if (!isSingle(values)) return { items: items.map(view) };
  const [item] = items;
  if (!item) throw dataStoreErrors.item_not_found({ fields: [[absent(values.key) ? 'id' : 'key', 'not found']] });
  // The view made twice, `items` added to one: objects of one shape, so V8's inline caches
  // hold. `{ ...view, items: [view] }` missed one on every call (a trip into V8's runtime that
  // cost more than the rest of getItem's answer); Object.assign costs a dozen times this.
  const answer = view(item) as T & { items: T[] };
  answer.items = [view(item)];
  return answer;
}

/** `result` counts the items written; each `success` entry ends with its place in the call, from 1. */
const writtenBody = (written: readonly WrittenItem[]) => ({
  result: written.length,
  success: written.map((w, i) => [w.label, timestampOf(w), i + 1]),
});

/** The original answers failed writes with `result: 0` and an empty `success` list; so does Roost. */
const withFailureBody = (write: Promise<object>) => failingWith({ result: 0, success: [] }, write);

/** An item as the answers carry it (itemView). */
const ITEM_MEMBERS = {
  key: SCALARS.string,
  value: { type: ['string', 'number'] },
  timestamp: { ...SCALARS.number, description: 'Seconds since the epoch (UTC), with a fraction.' },
  id: SCALARS.integer,
  owner: { ...SCALARS.string, description: "The owner's user name; empty when none." },
};
const ITEM_ANSWER = answerOf(ITEM_MEMBERS);

const OWNER_MEMBERS = { key: SCALARS.string, owner: SCALARS.string, id: SCALARS.integer };

/** One asked item: the item and the same as a one-item `items`; several: `items`. */
const oneOrMany = (members: Record<string, Record<string, unknown>>) => {
  const items = { type: 'array', items: answerOf(members) };
  return { anyOf: [answerOf({ ...members, items }), answerOf({ items })] };
};

/**
 * The success answers of the reads that run most, as Fastify writes them (fast-json-stringify:
 * an item in half the time of JSON.stringify). A property missing here would be missing from
 * the answer: the route tests compare whole answers. getItem's members are not required: one
 * schema writes both of its answers (one item, or only `items`).
 */
const WRITTEN_ITEM = {
  type: 'object',
  properties: {
    key: { type: 'string' },
    value: {},
    timestamp: { type: 'number' },
    id: { type: 'integer' },
    owner: { type: 'string' },
  },
};
const WRITTEN_BY = {
  getItem: {
    type: 'object',
    properties: { ...WRITTEN_ITEM.properties, items: { type: 'array', items: WRITTEN_ITEM } },
  },
  list: {
    type: 'object',
    properties: {
      items: { type: 'array', items: WRITTEN_ITEM },
      start: { type: 'integer' },
      size: { type: 'integer' },
      total: { type: 'integer' },
    },
  },
};

/** Every operation of one data store, `/<store>/api/<op>`, each answering GET (query) and POST (JSON or form body). */
export function dataStoreOperations(store: DataStore): DataStoreOperation[] {
  const i = store.inputs;
  return [
    {
      op: 'getItem',
      read: true,
      input: i.addressed,
      answer: oneOrMany(ITEM_MEMBERS),
      serializeBy: WRITTEN_BY.getItem,
      summary: 'Items by `key` or `id` (one or a list); one asked item also answers at the top level.',
      call: async (caller, values) => itemsAnswer(values, await store.get(caller, asInput(values)), itemView),
    },
    {
      op: 'newItem',
      failure: WRITE_FAILURE_ANSWER,
      input: i.newItem,
      answer: writesAnswer('[key, id, timestamp, place]', [
        SCALARS.string,
        SCALARS.integer,
        SCALARS.number,
        SCALARS.integer,
      ]),
      summary: 'Create items (`items`, or `key`/`value` at the top level); all or nothing: 409 when a key exists.',
      call: (caller, values) =>
        withFailureBody(
          store.create(caller, asInput(values)).then((stored) => ({
            result: stored.length,
            success: stored.map((it, n) => [it.key, it.id, timestampOf(it), n + 1]),
          })),
        ),
    },
    {
      op: 'setItem',
      failure: WRITE_FAILURE_ANSWER,
      input: i.setItem,
      answer: writesAnswer('[key or id, timestamp, place]', [
        { type: ['string', 'integer'] },
        SCALARS.number,
        SCALARS.integer,
      ]),
      summary: 'Create or replace items by key (or replace by `id`); all or nothing.',
      call: (caller, values) => withFailureBody(store.set(caller, asInput(values)).then(writtenBody)),
    },
    {
      op: 'removeItem',
      failure: WRITE_FAILURE_ANSWER,
      input: i.addressed,
      summary: 'Remove items by `key`, `id` or `items`; `result` counts the removed ones.',
      answer: answerOf({
        result: SCALARS.integer,
        success: { type: 'array', description: 'The removed items, as named.' },
      }),
      call: (caller, values) =>
        withFailureBody(
          store.remove(caller, asInput(values)).then((removed) => ({ result: removed.length, success: removed })),
        ),
    },
    {
      op: 'list',
      read: true,
      input: i.list,
      answer: answerOf({ items: { type: 'array', items: ITEM_ANSWER }, ...PAGE_MEMBERS }),
      serializeBy: WRITTEN_BY.list,
      summary:
        'A page of items: `key` filter, `prefix` (keys starting with it), `owner`, `sort` (key, value, timestamp), ' +
        '`order`, `start`, `size`; with `total`.',
      call: async (caller, values) => {
        const page = await store.list(caller, asInput(values));
        return { items: page.items.map(itemView), start: page.start, size: page.size, total: page.total };
      },
    },
    {
      op: 'keys',
      read: true,
      input: i.keys,
      summary: 'A page of keys: `prefix`, `owner`, `order`, `start`, `size`; with `total`.',
      answer: answerOf({ keys: SCALARS.strings, ...PAGE_MEMBERS }),
      call: (caller, values) => store.keys(caller, asInput(values)),
    },
    {
      op: 'getOwner',
      read: true,
      input: i.addressed,
      summary: 'The owners of items by `key` or `id`.',
      answer: oneOrMany(OWNER_MEMBERS),
      call: async (caller, values) => itemsAnswer(values, await store.getOwners(caller, asInput(values)), ownerView),
    },
    {
      op: 'setOwner',
      failure: WRITE_FAILURE_ANSWER,
      admin: true,
      input: i.addressed,
      summary: 'Give items (`key`, `id`, `items`) to `newOwner` (or `owner`).',
      answer: writesAnswer('[key or id, timestamp, place]', [
        { type: ['string', 'integer'] },
        SCALARS.number,
        SCALARS.integer,
      ]),
      call: (caller, values) => withFailureBody(store.setOwner(caller, asInput(values)).then(writtenBody)),
    },
    {
      op: 'allowed',
      read: true,
      input: allowedInput,
      summary: 'Does the caller hold these permissions?',
      answer: ALLOWED_ANSWER,
      call: async (caller, values) => allowedBody(await store.allowed(caller, asInput(values))),
    },
    {
      op: 'getPermissions',
      admin: true,
      read: true,
      summary: 'The permission entries of this store.',
      answer: PERMISSIONS_ANSWER,
      call: async (caller) => permissionsBody(await store.permissionEntries(caller)),
    },
    {
      op: 'setPermissions',
      admin: true,
      input: setPermissionsInput,
      summary: 'Add, replace or revoke groups of permission entries.',
      answer: PERMISSIONS_ANSWER,
      call: async (caller, values) => permissionsBody(await store.changePermissions(caller, asInput(values))),
    },
    {
      op: 'ping',
      read: true,
      summary: 'Health check: answers `result: 1`.',
      answer: ONE_ANSWER,
      call: async (caller) => {
        await store.ping(caller);
        return { result: 1 };
      },
    },
  ];
}
