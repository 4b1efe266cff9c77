import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../core/config.js';
import { newKeyInput, type KeyService, type KeyView, type NewKeyInput } from '../../keys/index.js';
import type { UserService } from '../../users/index.js';
import { assertWriteOrigin, callerOf } from '../auth.js';
import { docSchema, type OperationDoc } from '../openapi.js';
import { isoTime } from '../../core/clock.js';

/** A key as the routes answer it: times in ISO 8601 with offset (issue 42, item 8). */
const keyJson = (key: KeyView) => ({
  id: key.id,
  name: key.name,
  scopes: key.scopes,
  state: key.state,
  created: isoTime(key.created),
  createdBy: key.createdBy,
  expires: isoTime(key.expires),
  lastUsed: isoTime(key.lastUsed),
  revoked: isoTime(key.revoked),
});

const TIME = { type: ['string', 'null'], format: 'date-time' };
const KEY = {
  type: 'object',
  required: ['id', 'name', 'scopes', 'state', 'created', 'createdBy', 'expires', 'lastUsed', 'revoked'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'object' } },
    state: { enum: ['active', 'expired', 'revoked'] },
    created: { type: 'string', format: 'date-time' },
    createdBy: { type: 'string' },
    expires: TIME,
    lastUsed: TIME,
    revoked: TIME,
  },
};

/**
 * The API keys for administrators (docs/operations.md, "API keys"): `GET /api/keys`,
 * `POST /api/keys` (the key's text, `token`, is in that answer only), `GET /api/keys/<id>`,
 * `DELETE /api/keys/<id>` to revoke. The key service checks the caller: an administrator's
 * session, never a key.
 */
export async function registerKeyRoutes(
  app: FastifyInstance,
  options: { keys: KeyService; users: UserService; config: Config },
): Promise<void> {
  const { keys, users, config } = options;
  const schema = (operationId: string, summary: string, more: Partial<OperationDoc> & { in?: 'body' } = {}) =>
    docSchema({ operationId, summary, tags: ['keys'], in: more.in ?? 'none', ...more });
  async function caller(request: FastifyRequest, write: boolean) {
    const found = await callerOf(request, users);
    if (write) assertWriteOrigin(request, found, config.corsOrigins);
    return found.principal;
  }
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  app.get(
    '/api/keys',
    { schema: schema('keys_list', 'The API keys', { answer: { type: 'array', items: KEY } }) },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return (await keys.list(await caller(request, false))).map(keyJson);
    },
  );
  app.post(
    '/api/keys',
    {
      schema: schema('keys_create', 'Create an API key; its text is answered once', {
        in: 'body',
        input: newKeyInput,
        answer: { type: 'object', required: ['key', 'token'], properties: { key: KEY, token: { type: 'string' } } },
        status: 201,
      }),
      config: { validationStatus: 422 },
    },
    async (request, reply) => {
      // The body is checked by the key service's own schema (`newKeyInput`), whoever calls.
      const made = await keys.create(await caller(request, true), request.body as NewKeyInput);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ key: keyJson(made.key), token: made.token });
    },
  );
  app.get('/api/keys/:id', { schema: schema('keys_get', 'One API key', { answer: KEY }) }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return keyJson(await keys.get(await caller(request, false), idOf(request)));
  });
  app.delete(
    '/api/keys/:id',
    { schema: schema('keys_revoke', 'Revoke an API key, at once on every process', { answer: KEY }) },
    async (request) => {
      const principal = await caller(request, true);
      await keys.revoke(principal, idOf(request));
      return keyJson(await keys.get(principal, idOf(request)));
    },
  );
}
