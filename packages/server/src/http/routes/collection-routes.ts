import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  batchInput,
  definitionInput,
  recordQueryInput,
  recordReadInput,
  type Collections,
} from '../../collections/index.js';
import type { Config } from '../../core/config.js';
import type { UserService } from '../../users/index.js';
import { assertWriteOrigin, callerOf } from '../auth.js';
import { docSchema, type OperationDoc } from '../openapi.js';

/** What the routes answer, for /openapi.json (docs/collections.md); each collection's own fields come later. */
const RECORD = {
  type: 'object',
  required: ['id', 'created', 'updated', 'owner'],
  properties: {
    id: { type: 'string' },
    created: { type: 'string' },
    updated: { type: 'string' },
    owner: { type: ['string', 'null'] },
  },
  additionalProperties: true,
};
const PAGE = {
  type: 'object',
  required: ['items', 'next'],
  properties: {
    items: { type: 'array', items: RECORD },
    next: { type: ['string', 'null'] },
    total: { type: 'integer' },
  },
};
const BATCH = {
  type: 'object',
  required: ['results'],
  properties: { results: { type: 'array', items: { anyOf: [RECORD, { type: 'null' }] } } },
};
const COLLECTION = {
  type: 'object',
  required: ['name', 'schema', 'rules', 'version', 'created', 'updated', 'records'],
  properties: {
    name: { type: 'string' },
    schema: { type: 'object' },
    rules: { type: 'object' },
    version: { type: 'integer' },
    created: { type: 'string' },
    updated: { type: 'string' },
    records: { type: 'integer' },
  },
};
const COLLECTIONS = {
  type: 'object',
  required: ['collections'],
  properties: { collections: { type: 'array', items: COLLECTION } },
};
const RECORD_INPUT = z.record(z.string(), z.unknown());
const newCollectionInput = definitionInput.extend({ name: z.string() });

export interface CollectionRouteOptions {
  collections: Collections;
  users: UserService;
  config: Config;
}

type Params = { collection: string; id: string };

/**
 * The collections' JSON routes (docs/collections.md): records under
 * `/api/collections/<name>/records`, a batch of writes at `/api/collections/batch`, and the
 * collections themselves for administrators. Validation failures answer 422, as the stores' do.
 */
export async function registerCollectionRoutes(app: FastifyInstance, options: CollectionRouteOptions): Promise<void> {
  const { collections, users, config } = options;
  const routeConfig = { validationStatus: 422 };
  // The GETs only read: no audit frame (http/audit-context.ts).
  const readConfig = { ...routeConfig, readOnly: true };
  const schema = (
    operationId: string,
    summary: string,
    more: Partial<OperationDoc> & { in?: 'body' | 'querystring' } = {},
  ) => docSchema({ operationId, summary, tags: ['collections'], in: more.in ?? 'none', ...more });

  /** The caller, with the same-origin check of a write made with the session cookie. */
  async function caller(request: FastifyRequest, write: boolean) {
    const found = await callerOf(request, users);
    if (write) assertWriteOrigin(request, found, config.corsOrigins);
    return found.principal;
  }
  const params = (request: FastifyRequest) => request.params as Params;
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  const records = '/api/collections/:collection/records';
  app.get(
    records,
    {
      schema: schema('records_list', 'A page of records', { in: 'querystring', input: recordQueryInput, answer: PAGE }),
      config: readConfig,
    },
    async (request, reply) => {
      noStore(reply);
      const page = await collections.list(await caller(request, false), params(request).collection, request.query);
      // As UTF-8 bytes, encoded once: a string's length in bytes is measured for its content-length, then the
      // string is joined to the head and encoded again as it is written; a page's 30 kB made this 5 % of the
      // articles' page (bench/RESULTS.md, "Clear of the edge").
      return reply.type('application/json; charset=utf-8').send(Buffer.from(JSON.stringify(page)));
    },
  );
  app.post(
    records,
    {
      schema: schema('records_create', 'Create a record', {
        in: 'body',
        input: RECORD_INPUT,
        answer: RECORD,
        status: 201,
      }),
      config: routeConfig,
    },
    async (request, reply) => {
      const record = await collections.create(await caller(request, true), params(request).collection, request.body);
      return reply.code(201).send(record);
    },
  );
  const record = `${records}/:id`;
  app.get(
    record,
    {
      schema: schema('records_get', 'A record', { in: 'querystring', input: recordReadInput, answer: RECORD }),
      config: readConfig,
    },
    async (request, reply) => {
      noStore(reply);
      const { collection, id } = params(request);
      const text = await collections.getText(await caller(request, false), collection, id, request.query);
      // Already JSON: Fastify sends a string of a JSON type as it is.
      return reply.type('application/json; charset=utf-8').send(text);
    },
  );
  for (const [method, how] of [
    ['patch', 'merge'],
    ['put', 'replace'],
  ] as const) {
    const summary = how === 'merge' ? 'Change some fields of a record' : 'Replace a record';
    app[method](
      record,
      {
        schema: schema(`records_${how}`, summary, { in: 'body', input: RECORD_INPUT, answer: RECORD }),
        config: routeConfig,
      },
      async (request) => {
        const { collection, id } = params(request);
        return collections.update(await caller(request, true), collection, id, request.body, how);
      },
    );
  }
  app.delete(
    record,
    { schema: schema('records_delete', 'Delete a record', { status: 204 }), config: routeConfig },
    async (request, reply) => {
      const { collection, id } = params(request);
      await collections.remove(await caller(request, true), collection, id);
      return reply.code(204).send();
    },
  );
  app.post(
    '/api/collections/batch',
    {
      schema: schema('records_batch', 'Several writes, all or nothing', {
        in: 'body',
        input: batchInput,
        answer: BATCH,
      }),
      config: routeConfig,
    },
    async (request) => ({
      results: await collections.batch(await caller(request, true), request.body),
    }),
  );

  // The collections themselves: administrators only (each operation checks).
  app.get(
    '/api/collections',
    { schema: schema('collections_list', 'The collections', { answer: COLLECTIONS }), config: readConfig },
    async (request) => ({
      collections: await collections.collections(await caller(request, false)),
    }),
  );
  app.post(
    '/api/collections',
    {
      schema: schema('collections_create', 'Create a collection', {
        in: 'body',
        input: newCollectionInput,
        answer: COLLECTION,
        status: 201,
      }),
      config: routeConfig,
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as { name?: unknown };
      const { name, ...definition } = body;
      const made = await collections.define(await caller(request, true), String(name ?? ''), definition, 'create');
      return reply.code(201).send(made);
    },
  );
  const one = '/api/collections/:collection';
  app.get(
    one,
    { schema: schema('collections_get', 'A collection', { answer: COLLECTION }), config: readConfig },
    async (request) => collections.describe(await caller(request, false), params(request).collection),
  );
  app.put(
    one,
    {
      schema: schema('collections_change', 'Change a collection', {
        in: 'body',
        input: definitionInput,
        answer: COLLECTION,
      }),
      config: routeConfig,
    },
    async (request) =>
      collections.define(await caller(request, true), params(request).collection, request.body, 'change'),
  );
  app.delete(
    one,
    {
      schema: schema('collections_delete', 'Delete a collection and its records', { status: 204 }),
      config: routeConfig,
    },
    async (request, reply) => {
      await collections.drop(await caller(request, true), params(request).collection);
      return reply.code(204).send();
    },
  );
}
