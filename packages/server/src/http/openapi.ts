import type { FastifyInstance, FastifySchema } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { z } from 'zod';
import { FAILURE_ANSWER, successOrRefusal } from './protocol/answer-schemas.js';
import { PAGE_CSP } from './security-headers.js';

/** What the API docs say of one operation (and of its other methods and names). */
export interface OperationDoc {
  /** Unique in the document: `<service>_<operation>` (a store's name is its service). */
  operationId: string;
  tags: string[];
  summary: string;
  description?: string | undefined;
  input?: z.ZodType | undefined;
  /** The JSON schema of the success answer, for the docs. */
  answer?: object | undefined;
  /** The media type of the success answer when it is not JSON (a stream of events). */
  answerMedia?: string | undefined;
  /** The JSON schema of the failures when it is not FAILURE_ANSWER (`result: 0` of a failed write). */
  failure?: object | undefined;
  /**
   * A schema Fastify writes the success answer by (fast-json-stringify, for getItem and list):
   * what it does not name is left out of the answer.
   */
  serializeBy?: object | undefined;
  /** The success status when it is not 200: 201 for what a call made, 204 for an answer without a body. */
  status?: 201 | 204 | undefined;
}

/**
 * The route schema of one method of an operation. Input schemas exist for the documentation
 * only: the operations validate their input with the domain's zod schemas, so that failures
 * carry the seed's field reasons (Fastify's own validation is switched off in `http-app.ts`).
 * `alias`: another method or name of an operation documented under its POST (`GET` with the
 * parameters in the query, `updateMail`): it answers, but is not listed again.
 */
export function docSchema(
  doc: OperationDoc & { in: 'body' | 'querystring' | 'none'; alias?: boolean | undefined },
): FastifySchema {
  const { summary, description } = plainSummary(doc.summary, doc.description);
  const schema: DocumentedSchema = {
    tags: doc.tags,
    summary,
    operationId: doc.operationId,
    ...(description ? { description } : {}),
    ...(doc.alias ? { hide: true } : {}),
  };
  if (doc.input && doc.in !== 'none') schema[doc.in] = jsonSchemaOf(doc.input);
  if (doc.serializeBy) schema.response = { 200: doc.serializeBy };
  if (doc.answer) schema[ANSWER] = doc.answer;
  if (doc.answerMedia) schema[MEDIA] = doc.answerMedia;
  if (doc.failure) schema[FAILURE] = doc.failure;
  if (doc.status) schema[STATUS] = doc.status;
  return schema;
}

/**
 * A summary as plain text (tools show it as a title: no Markdown), and the description; when the
 * summary was written with Markdown (`code`), the description starts with it as written.
 */
export function plainSummary(
  written: string,
  description: string | undefined,
): { summary: string; description: string | undefined } {
  const summary = written.replace(/[`*]/g, '');
  if (summary === written) return { summary, description };
  return { summary, description: description ? `${written}\n\n${description}` : written };
}

/** The documented answers, carried to `documented` below without Fastify writing by them. */
const ANSWER = 'x-roost-answer';
const MEDIA = 'x-roost-media';
const FAILURE = 'x-roost-failure';
const STATUS = 'x-roost-status';
type DocumentedSchema = FastifySchema & {
  tags?: string[];
  summary?: string;
  operationId?: string;
  description?: string;
  hide?: boolean;
  [ANSWER]?: object;
  [MEDIA]?: string;
  [FAILURE]?: object;
  [STATUS]?: 201 | 204;
};

/**
 * Each documented operation with its answers as the server sends them: the success answer on
 * 200 (or the failure body beside it, where the route refuses values with 200: the user service,
 * http/routes/user-routes.ts), the failure body (FAILURE_ANSWER, or the operation's own) on 4XX
 * and 5XX.
 */
function documented({
  schema,
  url,
  route,
}: {
  schema: FastifySchema | undefined;
  url: string;
  route?: { config?: { validationStatus?: number } };
}): { schema: FastifySchema; url: string } {
  // Routes without a schema (pages, static files) are hidden by `hideUntagged` after this.
  if (!schema) return { schema: {}, url };
  const {
    [ANSWER]: answer,
    [MEDIA]: media,
    [FAILURE]: failure = FAILURE_ANSWER,
    [STATUS]: status = 200,
    response,
    ...rest
  } = schema as DocumentedSchema;
  if (!rest.operationId) return { schema, url };
  const given = answer ?? (response as Record<string, object> | undefined)?.[200] ?? { type: 'object' };
  const success = route?.config?.validationStatus === 200 ? successOrRefusal(given) : given;
  return {
    url,
    schema: {
      ...rest,
      response: {
        [status]:
          status === 204
            ? { description: 'Done; no body.', type: 'null' }
            : media
              ? { description: 'Success.', content: { [media]: { schema: success } } }
              : { description: 'Success.', ...success },
        '4XX': { ...failure, description: 'Refused: the code says why (docs/errors.md).' },
        '5XX': { ...failure, description: 'Not served now: try again later.' },
      },
    },
  };
}

/**
 * The inputs' convention (datastore-inputs.ts, core/validation.ts `stringList`): a list that is
 * preprocessed also takes one member alone (`key: "a"` for `key: ["a"]`). The JSON Schema of
 * such a field says both.
 */
function oneOrList(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const def = (ctx.zodSchema as { _zod?: { def?: { type?: string; in?: unknown; out?: unknown } } })._zod?.def;
  const side = (schema: unknown) => (schema as { _zod?: { def?: { type?: string } } })._zod?.def?.type;
  if (def?.type !== 'pipe' || side(def.in) !== 'transform' || side(def.out) !== 'array') return;
  const list = { ...ctx.jsonSchema };
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  ctx.jsonSchema.anyOf = [list.items ?? {}, list];
}

/**
 * The JSON Schema of an input, as callers write it (before preprocessing). Made anew each time:
 * the description is built once per process (swagger keeps it), and nothing is kept beside it.
 */
export function jsonSchemaOf(input: z.ZodType): object {
  let schema = jsonSchemas.get(input);
  if (!schema) {
    schema = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any', override: oneOrList });
    jsonSchemas.set(input, schema);
  }
  // A copy: the route schema it goes into is Fastify's to change.
  return structuredClone(schema);
}

/**
 * Each input's JSON schema, made once per process: the schemas are module constants, and every
 * app built in the process (each test server, an embedding program's) documents the same ones.
 * Making them was about 60 ms of each app's start.
 */
const jsonSchemas = new WeakMap<z.ZodType, object>();

/**
 * `/openapi.json` (generated from the route schemas) and a browsable page at `/docs`.
 * `extraPaths` adds what no route schema can say: the file stores' operations each under its
 * own path (they share catch-all routes, http/routes/filestore-routes.ts).
 */
export async function registerOpenApi(
  app: FastifyInstance,
  version: string,
  extraPaths: () => Record<string, object> = () => ({}),
): Promise<void> {
  await app.register(swagger, {
    // The pages and static files have no tags: only the API is documented.
    hideUntagged: true,
    transform: documented,
    transformObject: (doc) =>
      'openapiObject' in doc
        ? { ...doc.openapiObject, paths: { ...doc.openapiObject.paths, ...extraPaths() } }
        : doc.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Roost',
        version,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'User identity service, data stores, file stores and collections. ' +
          'Every operation of the user service and the data stores also answers GET with its parameters in the ' +
          'query (listed once, as POST); POST takes a JSON or a form body. ' +
          'Authenticate with `x-auth-token: <token>`, `Authorization: Bearer <token>`, ' +
          'or the `auth` cookie set by `signin`; operations open to everyone need none.',
      },
      servers: [{ url: '/', description: 'This Roost.' }],
      // Any one of the three, or none for the operations open to everyone.
      security: [{ token: [] }, { bearer: [] }, { cookie: [] }, {}],
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'x-auth-token' },
          bearer: { type: 'http', scheme: 'bearer' },
          cookie: { type: 'apiKey', in: 'cookie', name: 'auth' },
        },
      },
    },
  });
  // Swagger UI sets one inline style; the pages' CSP otherwise (scripts stay its own files).
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: `${PAGE_CSP}; style-src 'self' 'unsafe-inline'` });
  // The document is made once (swagger keeps it); the paths of what changes while Roost runs (a
  // collection made by an administrator: http/protocol/collection-docs.ts) are read anew each time.
  app.get('/openapi.json', { schema: { hide: true } as FastifySchema, config: { readOnly: true } }, async () => {
    const doc = app.swagger() as { paths?: Record<string, object> };
    return { ...doc, paths: { ...doc.paths, ...extraPaths() } };
  });
}
