import type { CollectionInfo } from '../../collections/index.js';
import { FAILURE_ANSWER } from './answer-schemas.js';

/**
 * Each collection's routes in `/openapi.json` with its own record (issue 39, item 6): the
 * request bodies are the collection's JSON Schema, the answers the record as the routes answer it
 * (the system fields and the schema's fields). Read per request of the document
 * (http/openapi.ts `extraPaths`), so a collection made while Roost runs is in it at once. The
 * generic routes (`/api/collections/{collection}/records`, http/routes/collection-routes.ts) stay
 * documented beside them for clients that learn collections at run time.
 */

type Schema = Record<string, unknown>;

const SYSTEM_PROPERTIES = {
  id: { type: 'string', description: 'A UUIDv7: ids sort in the order records were made.' },
  created: { type: 'string', description: 'ISO 8601, UTC.' },
  updated: { type: 'string', description: 'ISO 8601, UTC.' },
  owner: { type: ['string', 'null'], description: "The creator's user id; null when made anonymously." },
};

/** The collection's schema as a record's answer: the system fields beside its own, all of them required. */
function recordSchema(schema: Schema): Schema {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return {
    type: 'object',
    properties: { ...SYSTEM_PROPERTIES, ...properties },
    required: ['id', 'created', 'updated', 'owner', ...required],
    additionalProperties: false,
  };
}

/** What a write sends: the schema's fields, required ones only when the whole record is sent. */
function inputSchema(schema: Schema, whole: boolean): Schema {
  const { 'x-indexes': _indexes, $schema: _draft, required, ...rest } = schema;
  return { ...rest, ...(whole && Array.isArray(required) ? { required } : {}), additionalProperties: false };
}

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const failures = {
  '4XX': { description: 'Refused: the code says why (docs/errors.md).', ...json(FAILURE_ANSWER) },
  '5XX': { description: 'Not served now: try again later.', ...json(FAILURE_ANSWER) },
};

/** `/api/collections/<name>/records` and `.../{id}` of every collection, documented by its schema. */
export function collectionDocPaths(collections: ReadonlyArray<Pick<CollectionInfo, 'name' | 'schema'>>) {
  const paths: Record<string, object> = {};
  for (const { name, schema } of collections) {
    const record = recordSchema(schema as Schema);
    const tags = [`collection ${name}`];
    const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
    const page = {
      type: 'object',
      required: ['items', 'next'],
      properties: {
        items: { type: 'array', items: record },
        next: { type: ['string', 'null'] },
        total: { type: 'integer' },
      },
    };
    const query = (param: string, description: string, type = 'string') => ({
      name: param,
      in: 'query',
      required: false,
      description,
      schema: { type },
    });
    paths[`/api/collections/${name}/records`] = {
      get: {
        operationId: `${name}_records_list`,
        tags,
        summary: `A page of ${name}`,
        parameters: [
          query('filter', 'An expression of the filter language (docs/collection-queries.md).'),
          query('sort', 'Fields, `-` for descending: `-created,title`.'),
          query('perPage', 'Records per page, 1 to 500 (30).', 'integer'),
          query('cursor', 'The `next` of the page before.'),
          query('total', 'Count the records the filter matches.', 'boolean'),
        ],
        responses: { 200: { description: 'Success.', ...json(page) }, ...failures },
      },
      post: {
        operationId: `${name}_records_create`,
        tags,
        summary: `Create a record of ${name}`,
        requestBody: { required: true, ...json(inputSchema(schema as Schema, true)) },
        responses: { 201: { description: 'Made.', ...json(record) }, ...failures },
      },
    };
    paths[`/api/collections/${name}/records/{id}`] = {
      get: {
        operationId: `${name}_records_get`,
        tags,
        summary: `A record of ${name}`,
        parameters: [id],
        responses: { 200: { description: 'Success.', ...json(record) }, ...failures },
      },
      patch: {
        operationId: `${name}_records_merge`,
        tags,
        summary: `Change some fields of a record of ${name}`,
        parameters: [id],
        requestBody: { required: true, ...json(inputSchema(schema as Schema, false)) },
        responses: { 200: { description: 'Success.', ...json(record) }, ...failures },
      },
      put: {
        operationId: `${name}_records_replace`,
        tags,
        summary: `Replace a record of ${name}`,
        parameters: [id],
        requestBody: { required: true, ...json(inputSchema(schema as Schema, true)) },
        responses: { 200: { description: 'Success.', ...json(record) }, ...failures },
      },
      delete: {
        operationId: `${name}_records_delete`,
        tags,
        summary: `Delete a record of ${name}`,
        parameters: [id],
        responses: { 204: { description: 'Done; no body.' }, ...failures },
      },
    };
  }
  return paths;
}
