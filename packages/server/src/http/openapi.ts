import type { FastifyInstance, FastifySchema } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { z } from 'zod';
import { PAGE_CSP } from './security-headers.js';

/**
 * Input schemas exist for the documentation only: the operations validate their input with
 * the domain's zod schemas, so that failures carry the seed's field reasons. Fastify's own
 * validation is switched off in `http-app.ts`.
 */
export function docSchema(options: {
  tags: string[];
  summary: string;
  input?: z.ZodType | undefined;
  /** Where the parameters go: a JSON body (POST), the query (GET), or nowhere. */
  in: 'body' | 'querystring' | 'none';
  /**
   * The JSON schema of the success answer. Unlike the input, it is used: Fastify writes the
   * answer by it, and leaves out what it does not name.
   */
  answer?: object | undefined;
}): FastifySchema {
  const schema: FastifySchema & { tags: string[]; summary: string } = { tags: options.tags, summary: options.summary };
  if (options.input && options.in !== 'none') {
    schema[options.in] = jsonSchemaOf(options.input);
  }
  if (options.answer) schema.response = { 200: options.answer };
  return schema;
}

const jsonSchemas = new WeakMap<z.ZodType, object>();

/** The JSON Schema of an input, as callers write it (before preprocessing); made once per schema. */
function jsonSchemaOf(input: z.ZodType): object {
  let schema = jsonSchemas.get(input);
  if (!schema) {
    schema = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
    jsonSchemas.set(input, schema);
  }
  return schema;
}

/** `/openapi.json` (generated from the route schemas) and a browsable page at `/docs`. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Roost',
        version,
        description:
          'User identity service, data stores and file stores. Every operation answers GET (query) and POST (JSON or form body). ' +
          'Authenticate with `x-auth-token: <token>`, `Authorization: Bearer <token>`, or the `auth` cookie set by `signin`.',
      },
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
  app.get('/openapi.json', { schema: { hide: true } as FastifySchema }, async () => app.swagger());
}
