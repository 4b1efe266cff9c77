import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { patchBodyValidation, scimPatch, ScimError as PatchError, type ScimPatchOperation } from 'scim-patch';
import { keyAllows } from '../core/api-keys.js';
import type { Clock } from '../core/clock.js';
import { failureOf } from '../http/failure.js';
import { callerOf } from '../http/auth.js';
import { checkedBody } from '../http/request-values.js';
import type { Database } from '../storage/schema.js';
import { programCaller, type UserService } from '../users/index.js';
import { asScimError, etagOf, oneChangeAtATime, type ScimContext } from './scim-context.js';
import { errorBody, invalidSyntax, invalidValue, notFound, ScimError, versionMismatch } from './scim-errors.js';
import { groupOps, groupResource } from './scim-group-ops.js';
import { LIST_SCHEMA, listGroups, listUsers, type ListParams } from './scim-lists.js';
import { createScimRepo } from './scim-repo.js';
import { RESOURCE_TYPE_DOCUMENTS, SCHEMA_DOCUMENTS } from './scim-schemas.js';
import { serviceProviderConfig } from './scim-discovery.js';
import { userOps, userResource } from './scim-user-ops.js';

/** Where the SCIM endpoints are (RFC 7644 §3.13: the version in the path). */
export const SCIM_PATH = '/scim/v2';
const SCIM_JSON = 'application/scim+json; charset=utf-8';
/** Operations of one PATCH (RFC 7644 §3.5.2); a large group's members come in several. */
const PATCH_OPERATIONS_MAX = 1000;

export interface ScimRouteDeps {
  users: UserService;
  db: Kysely<Database>;
  clock: Clock;
  /** The server's public address, for `meta.location` and `$ref`. */
  publicUrl: string;
}

type Query = ListParams & { attributes?: string; excludedAttributes?: string };

/**
 * `/scim/v2/`: SCIM 2.0 provisioning (RFC 7643, RFC 7644; docs/users.md "SCIM"). The client is an
 * identity provider with an API key of the scope `scim:*:read,write` (core/api-keys.ts;
 * docs/decisions.md); every answer, errors too, is `application/scim+json`.
 */
export async function scimRoutes(app: FastifyInstance, deps: ScimRouteDeps): Promise<void> {
  const repo = createScimRepo(deps.db);
  const queues = new Map<string, Promise<unknown>>();
  const base = `${deps.publicUrl}${SCIM_PATH}`;

  const parseJson = app.getDefaultJsonParser('error', 'error');
  // A DELETE or GET may carry the type with no body (identity providers send it on every request).
  app.addContentTypeParser('application/scim+json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, done);
  });

  // NUL characters (PostgreSQL stores none) and deep nesting (the checks and scim-patch recurse) are refused first.
  app.addHook('preValidation', async (request) => {
    checkedBody(request.body);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const scim = asScimError(error);
    if (scim instanceof ScimError) return sendError(reply, scim.status, scim.detail, scim.scimType);
    // Anything else (a body too large, malformed JSON, a failure of Roost's): its status and safe
    // message from the one table (http/failure.ts), in SCIM's body.
    const failure = failureOf(error, request);
    const scimType = failure.status === 400 && failure.code.startsWith('malformed') ? 'invalidSyntax' : null;
    return sendError(reply, failure.status, failure.message, scimType);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, `No SCIM endpoint at ${request.method} ${request.url.split('?')[0]}.`, null),
  );

  /** The key's scope checked; the user service's caller for this request's changes. */
  async function contextOf(request: FastifyRequest, access: 'read' | 'write'): Promise<ScimContext> {
    const caller = await callerOf(request, deps.users);
    const key = caller.principal.key;
    if (!key) {
      if (caller.principal.userId === null) throw new ScimError(401, 'Send an API key: Authorization: Bearer roost_….');
      throw new ScimError(403, 'Only an API key with the scope scim:*:read,write may call the SCIM endpoints.');
    }
    if (!keyAllows(key, 'scim', '*', access))
      throw new ScimError(403, `This API key's scopes do not cover SCIM ${access === 'read' ? 'reads' : 'writes'}.`);
    return {
      users: deps.users,
      repo,
      clock: deps.clock,
      caller: programCaller(caller.principal.name ?? `key:${key.id}`),
      base,
      queues,
    };
  }

  const send = (reply: FastifyReply, status: number, body: object, version?: number) => {
    if (version !== undefined) void reply.header('etag', etagOf(version));
    return reply.code(status).type(SCIM_JSON).send(body);
  };

  /** `If-Match` (RFC 7644 §3.14): a write to another version than the one named is refused. */
  const checkVersion = (request: FastifyRequest, version: number) => {
    const wanted = request.headers['if-match'];
    if (wanted !== undefined && wanted !== '*' && !wanted.split(',').some((tag) => tag.trim() === etagOf(version)))
      throw versionMismatch();
  };

  const read = { config: { readOnly: true } };

  app.get('/ServiceProviderConfig', read, async (request, reply) => {
    await contextOf(request, 'read');
    return send(reply, 200, serviceProviderConfig(base));
  });
  const located = <R extends { meta: { location: string } }>(r: R) => ({
    ...r,
    meta: { ...r.meta, location: base + r.meta.location },
  });
  /** A discovery list, and each of its resources by id (RFC 7644 §4). */
  const discovery = (path: string, resources: readonly { id: string }[], what: string) => {
    app.get(path, read, async (request, reply) => {
      await contextOf(request, 'read');
      return send(reply, 200, listOf(resources));
    });
    app.get<{ Params: { id: string } }>(`${path}/:id`, read, async (request, reply) => {
      await contextOf(request, 'read');
      const found = resources.find((r) => r.id === request.params.id);
      if (!found) throw notFound(what, request.params.id);
      return send(reply, 200, found);
    });
  };
  discovery('/ResourceTypes', RESOURCE_TYPE_DOCUMENTS.map(located), 'ResourceType');
  discovery('/Schemas', SCHEMA_DOCUMENTS.map(located), 'Schema');

  app.get<{ Querystring: Query }>('/Users', read, async (request, reply) => {
    const ctx = await contextOf(request, 'read');
    const list = await listUsers(ctx, request.query);
    return send(reply, 200, { ...list, Resources: list.Resources.map((r) => projected(r, request.query)) });
  });
  app.get<{ Params: { id: string }; Querystring: Query }>('/Users/:id', read, async (request, reply) => {
    const ctx = await contextOf(request, 'read');
    const { row, account } = await userOps(ctx).load(request.params.id);
    const groups = await repo.groups(0, 10_000);
    return send(reply, 200, projected(userResource(ctx, row, account, groups), request.query), row.version);
  });
  app.post('/Users', async (request, reply) => {
    const ctx = await contextOf(request, 'write');
    const { row, account } = await userOps(ctx).create(request.body);
    const resource = userResource(ctx, row, account, []);
    void reply.header('location', `${base}/Users/${row.userId}`);
    return send(reply, 201, resource, row.version);
  });
  /** A PUT or PATCH of a User: read, checked against If-Match and written with no other change between. */
  const userWrite = async (request: FastifyRequest<{ Params: { id: string } }>, patch: boolean) => {
    const ctx = await contextOf(request, 'write');
    const ops = userOps(ctx);
    const { id } = request.params;
    await ops.load(id);
    return oneChangeAtATime(ctx, id, async () => {
      const current = await ops.load(id);
      checkVersion(request, current.row.version);
      const groups = await repo.groups(0, 10_000);
      const resource = userResource(ctx, current.row, current.account, groups);
      await ops.replace(current, patch ? patched(resource, request.body) : request.body);
      const after = await ops.load(id);
      return { resource: userResource(ctx, after.row, after.account, groups), version: after.row.version };
    });
  };
  app.put<{ Params: { id: string } }>('/Users/:id', async (request, reply) => {
    const { resource, version } = await userWrite(request, false);
    return send(reply, 200, resource, version);
  });
  app.patch<{ Params: { id: string } }>('/Users/:id', async (request, reply) => {
    const { resource, version } = await userWrite(request, true);
    return send(reply, 200, resource, version);
  });
  app.delete<{ Params: { id: string } }>('/Users/:id', async (request, reply) => {
    const ctx = await contextOf(request, 'write');
    const ops = userOps(ctx);
    const { id } = request.params;
    await ops.load(id);
    // After a PUT or PATCH under way, not in its middle (`oneChangeAtATime`).
    await oneChangeAtATime(ctx, id, async () => {
      checkVersion(request, (await ops.load(id)).row.version);
      await ops.remove(id);
    });
    return reply.code(204).send();
  });

  app.get<{ Querystring: Query }>('/Groups', read, async (request, reply) => {
    const ctx = await contextOf(request, 'read');
    const list = await listGroups(ctx, request.query, !excluded(request.query, 'members'));
    return send(reply, 200, { ...list, Resources: list.Resources.map((r) => projected(r, request.query)) });
  });
  app.get<{ Params: { id: string }; Querystring: Query }>('/Groups/:id', read, async (request, reply) => {
    const ctx = await contextOf(request, 'read');
    const ops = groupOps(ctx);
    const group = await ops.load(request.params.id);
    const members = excluded(request.query, 'members') ? [] : await ops.membersOf(group);
    return send(reply, 200, projected(groupResource(ctx, group, members), request.query), group.version);
  });
  app.post('/Groups', async (request, reply) => {
    const ctx = await contextOf(request, 'write');
    const ops = groupOps(ctx);
    const group = await ops.create(request.body);
    void reply.header('location', `${base}/Groups/${group.id}`);
    return send(reply, 201, groupResource(ctx, group, await ops.membersOf(group)), group.version);
  });
  const groupWrite = async (request: FastifyRequest<{ Params: { id: string } }>, patch: boolean) => {
    const ctx = await contextOf(request, 'write');
    const ops = groupOps(ctx);
    const group = await ops.load(request.params.id);
    checkVersion(request, group.version);
    const members = await ops.membersOf(group);
    const body = patch ? patched(groupResource(ctx, group, members), request.body) : request.body;
    await ops.replace(group, members, body);
    const after = await ops.load(group.id);
    return { resource: groupResource(ctx, after, await ops.membersOf(after)), version: after.version };
  };
  app.put<{ Params: { id: string } }>('/Groups/:id', async (request, reply) => {
    const { resource, version } = await groupWrite(request, false);
    return send(reply, 200, resource, version);
  });
  app.patch<{ Params: { id: string } }>('/Groups/:id', async (request, reply) => {
    const { resource, version } = await groupWrite(request, true);
    return send(reply, 200, resource, version);
  });
  app.delete<{ Params: { id: string } }>('/Groups/:id', async (request, reply) => {
    const ctx = await contextOf(request, 'write');
    const ops = groupOps(ctx);
    const group = await ops.load(request.params.id);
    checkVersion(request, group.version);
    await ops.remove(group, await ops.membersOf(group));
    return reply.code(204).send();
  });
}

function sendError(reply: FastifyReply, status: number, detail: string, scimType: ScimError['scimType']) {
  if (status === 401) void reply.header('www-authenticate', 'Bearer realm="roost-scim"');
  return reply
    .code(status)
    .type(SCIM_JSON)
    .send(errorBody(status, detail, scimType));
}

const listOf = (resources: readonly object[]) => ({
  schemas: [LIST_SCHEMA],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});

/**
 * A PATCH request (RFC 7644 §3.5.2) applied by scim-patch to the resource as it is; the result is
 * then checked and written as a PUT would be (its `meta` is the server's and is left out).
 */
function patched(resource: object, body: unknown): unknown {
  if (typeof body !== 'object' || body === null) throw invalidSyntax('The body must be a PatchOp message.');
  const operations = (body as { Operations?: unknown }).Operations;
  if (Array.isArray(operations) && operations.length > PATCH_OPERATIONS_MAX)
    throw invalidValue(`A PATCH may hold at most ${PATCH_OPERATIONS_MAX} operations.`);
  if (Array.isArray(operations)) operations.forEach(refusePrototypePaths);
  try {
    patchBodyValidation(body as Parameters<typeof patchBodyValidation>[0]);
    const result = scimPatch(resource as Parameters<typeof scimPatch>[0], byValue(operations as ScimPatchOperation[]), {
      mutateDocument: false,
      treatMissingAsAdd: true,
    });
    const { meta: _server, ...rest } = result as unknown as Record<string, unknown>;
    return rest;
  } catch (err) {
    if (err instanceof PatchError) {
      const scimType = err.scimCode === 'noTarget' || err.scimCode === 'invalidPath' ? err.scimCode : 'invalidValue';
      throw new ScimError(400, err.message, scimType);
    }
    throw err;
  }
}

/** Names that lead from an object to `Object.prototype`: no SCIM attribute has one. */
const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const reachesPrototype = (text: string) =>
  text
    .toLowerCase()
    .split(/[\s.:[\]"]+/)
    .some((name) => PROTOTYPE_NAMES.has(name));
const keysReachPrototype = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  Object.entries(value).some(([key, inner]) => reachesPrototype(key) || keysReachPrototype(inner));

/**
 * scim-patch (0.8.3, its newest) walks a path's names and a value's dotted keys by plain property
 * access, so `__proto__.x` or a value `{"constructor.prototype.x": …}` would set `x` on every
 * object of the process (the JSON parser refuses only a key `__proto__` itself, scim-routes.ts
 * `parseJson`). Such an operation is refused before the library sees it.
 */
function refusePrototypePaths(operation: unknown): void {
  const { path, value } = (operation ?? {}) as { path?: unknown; value?: unknown };
  if (typeof path === 'string' && reachesPrototype(path))
    throw new ScimError(400, `The path "${path.slice(0, 200)}" names no attribute.`, 'invalidPath');
  if (keysReachPrototype(value)) throw invalidValue('A value names no attribute (__proto__, constructor, prototype).');
}

/**
 * Entra ID removes members as `{"op": "Remove", "path": "members", "value": [{"value": "<id>"}]}`;
 * scim-patch removes only the items equal to the whole value given, so `{value}` alone would match
 * no member (with its `display` and `$ref`) and remove nothing. Such a removal is read as one
 * `members[value eq "<id>"]` per item, what RFC 7644 §3.5.2.2 writes.
 */
function byValue(operations: readonly ScimPatchOperation[]): ScimPatchOperation[] {
  return operations.flatMap((operation): ScimPatchOperation[] => {
    const { op, path, value } = operation;
    const items = Array.isArray(value) ? (value as unknown[]) : null;
    const ids = items?.map((item) => (item as { value?: unknown } | null)?.value);
    if (op.toLowerCase() !== 'remove' || !path || path.includes('[') || !ids?.every((id) => typeof id === 'string'))
      return [operation];
    return ids.map((id) => ({ op: 'remove' as const, path: `${path}[value eq ${JSON.stringify(id)}]` }));
  });
}

const names = (text: string | undefined) =>
  new Set(
    (text ?? '')
      .split(',')
      .map((n) => n.trim().toLowerCase())
      .filter(Boolean),
  );

const excluded = (query: Query, attribute: string) => names(query.excludedAttributes).has(attribute);

/** `attributes` and `excludedAttributes` (RFC 7644 §3.9), on top-level attributes; `id` and `schemas` always stay. */
function projected(resource: object, query: Query): object {
  const only = names(query.attributes);
  const without = names(query.excludedAttributes);
  if (only.size === 0 && without.size === 0) return resource;
  return Object.fromEntries(
    Object.entries(resource).filter(([key]) => {
      const name = key.toLowerCase();
      if (name === 'id' || name === 'schemas') return true;
      return only.size ? only.has(name) || name === 'meta' : !without.has(name);
    }),
  );
}
