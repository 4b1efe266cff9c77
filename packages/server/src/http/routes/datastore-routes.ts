import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../../core/config.js';
import { allowedInput, setPermissionsInput } from '../../core/validation.js';
import type { DataStore, DataStores } from '../../datastore/index.js';
import type { UserService } from '../../users/index.js';
import { assertWriteOrigin, callerOf } from '../auth.js';
import { docSchema } from '../openapi.js';
import { requestValues } from '../request-values.js';

export interface DataStoreRouteOptions {
  dataStores: DataStores;
  users: UserService;
  config: Config;
}

interface DataStoreRoute {
  op: string;
  summary: string;
  /** Changes nothing, so a cross-site cookie request may call it. */
  read?: boolean;
  admin?: boolean;
  input?: z.ZodType;
}

/** An item as the answers carry it (datastore-views.ts). */
const ITEM_ANSWER = {
  type: 'object',
  properties: {
    key: { type: 'string' },
    value: {},
    timestamp: { type: 'number' },
    id: { type: 'integer' },
    owner: { type: 'string' },
  },
} as const;

/**
 * The success answers of the reads that run most. Fastify writes them by these schemas
 * (fast-json-stringify: an item in half the time of JSON.stringify), and the API docs show
 * them. A property missing here would be missing from the answer: the route tests compare
 * whole answers.
 */
const ANSWERS: Record<string, object> = {
  getItem: { type: 'object', properties: { ...ITEM_ANSWER.properties, items: { type: 'array', items: ITEM_ANSWER } } },
  list: {
    type: 'object',
    properties: {
      items: { type: 'array', items: ITEM_ANSWER },
      start: { type: 'integer' },
      size: { type: 'integer' },
      total: { type: 'integer' },
    },
  },
};

/** Every operation of one data store, `/<store>/api/<op>`, each answering GET (query) and POST (JSON or form body). */
export function dataStoreRoutes(store: DataStore): DataStoreRoute[] {
  const i = store.inputs;
  return [
    {
      op: 'getItem',
      read: true,
      input: i.addressed,
      summary: 'Items by `key` or `id` (one or a list); one asked item also answers at the top level.',
    },
    {
      op: 'newItem',
      input: i.newItem,
      summary: 'Create items (`items`, or `key`/`value` at the top level); all or nothing: 409 when a key exists.',
    },
    {
      op: 'setItem',
      input: i.setItem,
      summary: 'Create or replace items by key (or replace by `id`); all or nothing.',
    },
    {
      op: 'removeItem',
      input: i.addressed,
      summary: 'Remove items by `key`, `id` or `items`; `result` counts the removed ones.',
    },
    {
      op: 'list',
      read: true,
      input: i.list,
      summary:
        'A page of items: `key` filter, `prefix` (keys starting with it), `owner`, `sort` (key, value, timestamp), `order`, `start`, `size`; with `total`.',
    },
    {
      op: 'keys',
      read: true,
      input: i.keys,
      summary: 'A page of keys: `prefix`, `owner`, `order`, `start`, `size`; with `total`.',
    },
    { op: 'getOwner', read: true, input: i.addressed, summary: 'The owners of items by `key` or `id`.' },
    {
      op: 'setOwner',
      admin: true,
      input: i.addressed,
      summary: 'Give items (`key`, `id`, `items`) to `newOwner` (or `owner`).',
    },
    { op: 'allowed', read: true, input: allowedInput, summary: 'Does the caller hold these permissions?' },
    { op: 'getPermissions', admin: true, read: true, summary: 'The permission entries of this store.' },
    {
      op: 'setPermissions',
      admin: true,
      input: setPermissionsInput,
      summary: 'Add, replace or revoke groups of permission entries.',
    },
    { op: 'ping', read: true, summary: 'Health check: answers `result: 1`.' },
  ];
}

/** `/<store>/api/<op>` of every configured data store. Validation failures answer 422. */
export async function registerDataStoreRoutes(app: FastifyInstance, options: DataStoreRouteOptions): Promise<void> {
  const { users, config } = options;
  const routeConfig = { validationStatus: 422 };
  for (const name of options.dataStores.names) {
    const store = options.dataStores.get(name);
    if (!store) continue;
    for (const route of dataStoreRoutes(store)) {
      const docs = {
        tags: [route.admin ? 'data store (administrators)' : 'data store'],
        summary: route.summary,
        input: route.input,
        answer: ANSWERS[route.op],
      };
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        // Items may be private to their owner: no browser or proxy cache keeps them.
        reply.header('cache-control', 'no-store');
        const caller = await callerOf(request, users);
        if (!route.read) assertWriteOrigin(request, caller, config.corsOrigins);
        return store.run(route.op, caller.principal, requestValues(request));
      };
      const url = `/${name}/api/${route.op}`;
      app.post(url, { schema: docSchema({ ...docs, in: 'body' }), config: routeConfig }, handler);
      app.get(url, { schema: docSchema({ ...docs, in: 'querystring' }), config: routeConfig }, handler);
    }
  }
}
