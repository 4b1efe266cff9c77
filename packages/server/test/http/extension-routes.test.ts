import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { tsImport } from 'tsx/esm/api';
import { z } from 'zod';
import Fastify from 'fastify';
import { createExtensionRoutes } from '../../src/extend/routes.js';
import { parseConfig } from '../../src/core/config.js';
import { pino } from 'pino';
import { createRoost, defineExtension, RoostError, type RoostExtension, type StandardSchema } from '../../src/roost.js';
import { createMigratedPostgresDatabase, useServer } from '../helpers/test-server.js';

/**
 * Issue 40, item 3: routes of your own (extend/routes.ts), over HTTP on both databases. The
 * example of docs/hooks.md, "Routes of your own", runs as written, beside the test's own routes:
 * sign-in, input checked by zod and by a JSON Schema (missing, wrong-typed, oversized, hostile),
 * the caller's permissions and the system's, a handler that throws or takes too long, parallel
 * callers, and each route's entry in /openapi.json called through a generated client.
 */

const DOC = fileURLToPath(new URL('../../../../docs/hooks.md', import.meta.url));

/** The TypeScript block of the doc's section, importing Roost and zod from this checkout. */
async function docExtension(): Promise<RoostExtension> {
  const text = await readFile(DOC, 'utf8');
  const start = text.indexOf('\n## Routes of your own');
  assert.ok(start >= 0, 'docs/hooks.md has the section "Routes of your own"');
  const end = text.indexOf('\n## ', start + 1);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(start, end < 0 ? undefined : end))?.[1];
  assert.ok(block, 'the section has a TypeScript block');
  const roost = pathToFileURL(fileURLToPath(new URL('../../src/roost.ts', import.meta.url))).href;
  const source = block.replace("'@roost/server'", `'${roost}'`).replace("'zod'", `'${import.meta.resolve('zod')}'`);
  const dir = await mkdtemp(join(tmpdir(), 'roost-doc-'));
  try {
    const file = join(dir, 'orders.mts');
    await writeFile(file, source);
    const loaded = (await tsImport(pathToFileURL(file).href, import.meta.url)) as { default: RoostExtension };
    return loaded.default;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A Standard Schema written by hand to the specification (standardschema.dev), as a library
 * other than zod implements it: its issues' paths name the fields, as segments or keys.
 */
const threeCapitals: StandardSchema<{ code: string }> = {
  '~standard': {
    version: 1,
    vendor: 'by-hand',
    validate(value) {
      const code = (value as { code?: unknown }).code;
      if (typeof code === 'string' && /^[A-Z]{3}$/.test(code)) return { value: { code } };
      return { issues: [{ message: 'three capital letters', path: [{ key: 'code' }] }] };
    },
  },
};

/** What the test's own routes saw: the aborted signal of the slow handler. */
const seen = { slowAborted: false };

const own = defineExtension((roost) => {
  roost.routes.get(
    '/echo/:id',
    {
      auth: 'none',
      input: z.object({ n: z.coerce.number().int().max(1000), tags: z.array(z.string()).optional() }),
      answer: {
        type: 'object',
        properties: { id: { type: 'string' }, n: { type: 'integer' }, who: { type: ['string', 'null'] } },
        required: ['id', 'n', 'who'],
      },
      summary: 'Echo a number',
    },
    ({ input, params, caller }) => ({ id: params.id, n: input.n, who: caller.user?.name ?? null }),
  );
  // A JSON Schema on a body: every problem at once, by field.
  roost.routes.put(
    '/profile',
    {
      auth: 'user',
      input: {
        type: 'object',
        properties: {
          nickname: { type: 'string', minLength: 1, maxLength: 20 },
          age: { type: 'integer', minimum: 0 },
          mail: { type: 'string', format: 'email' },
        },
        required: ['nickname', 'age'],
        additionalProperties: false,
      },
    },
    ({ input }) => ({ saved: input }),
  );
  // The caller's data store access, and the system's.
  roost.routes.post(
    '/notes',
    { auth: 'user', input: z.object({ key: z.string().max(50), text: z.string().max(200) }) },
    async ({ input, services }) => {
      const [written] = await services.dataStore('data').set({ key: input.key, value: input.text });
      return { key: written?.label };
    },
  );
  roost.routes.post(
    '/notes/:key/stamp',
    { auth: 'user', input: z.object({ system: z.boolean().default(false) }) },
    async ({ input, params, services, asSystem }) => {
      const as = input.system ? asSystem() : services;
      await as.dataStore('data').set({ key: params.key ?? '', value: 'stamped' });
      return { stamped: params.key };
    },
  );
  roost.routes.get(
    '/admin-only',
    { auth: 'admin', summary: 'For administrators', answer: z.object({ administers: z.boolean() }) },
    ({ caller }) => ({ administers: caller.administers }),
  );
  roost.routes.post('/codes', { auth: 'none', input: threeCapitals }, ({ input }) => ({ code: input.code }));
  roost.routes.get('/text', { auth: 'none' }, () => 'a text');
  roost.routes.delete('/nothing', { auth: 'none' }, () => {});
  roost.routes.post('/boom', { auth: 'none' }, () => {
    throw new Error('kaboom: an internal detail');
  });
  roost.routes.post('/refuse', { auth: 'none' }, () => {
    throw new RoostError('conflict', 'not_today', 'Not today.', { fields: [['day', 'closed']] });
  });
  roost.routes.get('/slow', { auth: 'none', timeoutSeconds: 0.2 }, async ({ signal }) => {
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    seen.slowAborted = true;
    return 'late';
  });
});

const docOrders = await docExtension();

describe('routes of your own', () => {
  const orders = {
    schema: {
      type: 'object',
      properties: { item: { type: 'string' }, quantity: { type: 'integer' } },
      required: ['item', 'quantity'],
    },
    rules: {
      list: 'owner = @request.auth.id',
      view: 'owner = @request.auth.id',
      create: '@request.auth.id != null',
      update: null,
      delete: null,
    },
  };
  // Roost's log, read by the test: the failure of a handler names its route.
  const logLines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'error' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
  const s = useServer(
    { collections: { orders }, dataStores: { data: {} }, bodyLimit: 64 * 1024 },
    { extensions: [docOrders, own], log },
  );

  test("the doc's example: a signed-in order, its refusals, the count as the system", async () => {
    const anonymous = await s.request('/api/x/orders', { item: 'tea', quantity: 1 });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'not_signed_in');
    const alice = await s.createUser('alice');
    const bob = await s.createUser('bob');
    const placed = await s.request('/api/x/orders', { item: 'tea', quantity: 2 }, { token: alice });
    assert.equal(placed.status, 200);
    assert.match(placed.body.id, /\S/);
    await s.request('/api/x/orders', { item: 'tea', quantity: 1 }, { token: bob });
    // Alice's own listing sees her order only (the collection's rule); the route counts both.
    const mine = await s.request('/api/collections/orders/records', undefined, { token: alice });
    assert.equal(mine.body.items.length, 1);
    const count = await s.request('/api/x/orders/count?item=tea', undefined, { token: alice });
    assert.deepEqual(count.body, { item: 'tea', orders: 2 });

    const soldOut = await s.request('/api/x/orders', { item: 'unicorn', quantity: 1 }, { token: alice });
    assert.equal(soldOut.status, 409);
    assert.equal(soldOut.body.code, 'sold_out');
    assert.equal(soldOut.body.result, false);
    const missing = await s.request('/api/x/orders', { item: 'tea' }, { token: alice });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.code, 'validation_failure');
    assert.deepEqual(missing.body.invalid, [['quantity', 'required']]);
    const wrong = await s.request('/api/x/orders', { item: 'tea', quantity: 'two' }, { token: alice });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.body.invalid[0][0], 'quantity');
    // A filter injected through the query is refused by the JSON Schema's pattern before it reaches the filter.
    const injected = await s.request(`/api/x/orders/count?item=${encodeURIComponent('tea" || item != "')}`, undefined, {
      token: alice,
    });
    assert.equal(injected.status, 422);
    assert.equal(injected.body.invalid[0][0], 'item');
    const extra = await s.request('/api/x/orders/count?item=tea&owner=x', undefined, { token: alice });
    assert.equal(extra.status, 422);
    assert.deepEqual(extra.body.invalid, [['owner', 'no such field in the schema']]);
  });

  test('input: coerced query, every field of a JSON Schema at once, oversized and hostile bodies', async () => {
    const echo = await s.request('/api/x/echo/abc?n=42&tags=a&tags=b', undefined);
    assert.equal(echo.status, 200);
    assert.deepEqual(echo.body, { id: 'abc', n: 42, who: null });
    assert.equal((await s.request('/api/x/echo/abc?n=many')).status, 422);
    assert.deepEqual((await s.request('/api/x/echo/abc?n=5000')).body.invalid, [['n', 'too long']]);

    const token = await s.createUser('carol');
    const put = (body: unknown, raw?: string) =>
      s.request('/api/x/profile', body, {
        token,
        method: 'PUT',
        ...(raw !== undefined ? { raw, headers: { 'content-type': 'application/json' } } : {}),
      });
    assert.deepEqual((await put({ nickname: 'c', age: 30 })).body, { saved: { nickname: 'c', age: 30 } });
    const bad = await put({ nickname: '', age: -1, mail: 'not-a-mail', admin: true });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.invalid.map(([field]: [string]) => field).sort(), ['admin', 'age', 'mail', 'nickname']);
    const typed = await put({ nickname: 7, age: '30' });
    assert.deepEqual(typed.body.invalid.map(([field]: [string]) => field).sort(), ['age', 'nickname']);

    const oversized = await put({ nickname: 'x'.repeat(70 * 1024), age: 1 });
    assert.equal(oversized.status, 413);
    assert.equal(oversized.body.code, 'body_too_large');
    const nul = await put({ nickname: 'a\u0000b', age: 1 });
    assert.equal(nul.status, 400);
    assert.equal(nul.body.code, 'nul_character');
    const deep = await put(undefined, `{"nickname":${'['.repeat(100)}${']'.repeat(100)},"age":1}`);
    assert.equal(deep.status, 400);
    assert.equal(deep.body.code, 'too_deep');
    const poisoned = await put(undefined, '{"nickname":"a","age":1,"__proto__":{"admin":true}}');
    assert.equal(poisoned.status, 400);
    assert.equal((await put(undefined, '[1,2]')).body.code, 'malformed_body');
    assert.equal((await put(undefined, '{"nickname":')).body.code, 'malformed_json');
  });

  test("the caller's permissions hold in the handler; the system's view goes past them", async () => {
    const dave = await s.createUser('dave');
    const erin = await s.createUser('erin');
    assert.deepEqual((await s.request('/api/x/notes', { key: 'k1', text: 'hi' }, { token: dave })).body, { key: 'k1' });
    // Erin may not change Dave's item as herself: the store refuses her, as on its own routes.
    const refused = await s.request('/api/x/notes/k1/stamp', {}, { token: erin });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.result, false);
    const item = async () => (await s.request('/data/api/getItem?key=k1', undefined, { token: dave })).body;
    assert.equal((await item()).value, 'hi');
    const stamped = await s.request('/api/x/notes/k1/stamp', { system: true }, { token: erin });
    assert.equal(stamped.status, 200);
    assert.equal((await item()).value, 'stamped');

    assert.equal((await s.request('/api/x/admin-only')).status, 401);
    const notAdmin = await s.request('/api/x/admin-only', undefined, { token: erin });
    assert.equal(notAdmin.status, 403);
    assert.equal(notAdmin.body.code, 'not_allowed');
    const admin = await s.request('/api/x/admin-only', undefined, { token: await s.adminToken() });
    assert.deepEqual(admin.body, { administers: true });
  });

  test('a write with the session cookie from another site is refused; a bearer token is accepted', async () => {
    const token = await s.createUser('frank');
    const cookie = { cookie: `auth=${token}`, origin: 'https://elsewhere.example' };
    const forged = await s.request('/api/x/notes', { key: 'k2', text: 'x' }, { headers: cookie });
    assert.equal(forged.status, 403);
    assert.equal(forged.body.code, 'cross_site_request');
    const bearer = { authorization: `Bearer ${token}` };
    assert.equal((await s.request('/api/x/notes', { key: 'k2', text: 'x' }, { headers: bearer })).status, 200);
  });

  test('answers are JSON; a throw is a 500 with no detail, a RoostError its own failure, a slow one 503', async () => {
    const boom = await s.request('/api/x/boom', {});
    assert.equal(boom.status, 500);
    assert.equal(boom.body.code, 'internal_error');
    assert.doesNotMatch(JSON.stringify(boom.body), /kaboom/);
    const logged = logLines.find((line) => (line.err as { message?: string } | undefined)?.message?.includes('kaboom'));
    assert.equal(logged?.route, 'POST /api/x/boom', 'the log names the route whose handler failed');
    const text = await s.request('/api/x/text');
    assert.equal(text.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(text.body, 'a text');
    const nothing = await s.request('/api/x/nothing', undefined, { method: 'DELETE' });
    assert.equal(nothing.status, 200);
    assert.equal(nothing.body, null);
    const refused = await s.request('/api/x/refuse', {});
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body.invalid, [['day', 'closed']]);
    const code = await s.request('/api/x/codes', { code: 'abc' });
    assert.equal(code.status, 422);
    assert.deepEqual(code.body.invalid, [['code', 'three capital letters']]);
    assert.deepEqual((await s.request('/api/x/codes', { code: 'ABC' })).body, { code: 'ABC' });
    const slow = await s.request('/api/x/slow');
    assert.equal(slow.status, 503);
    assert.equal(slow.body.code, 'route_timeout');
    assert.equal(seen.slowAborted, true);
    // The process still serves.
    assert.equal((await s.request('/api/x/echo/z?n=1')).status, 200);
  });

  test('parallel callers each get their own caller and their own records', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `parallel${i}`);
    const tokens = await Promise.all(names.map((name) => s.createUser(name)));
    const answers = await Promise.all(
      tokens.flatMap((token, i) => [
        s.request('/api/x/orders', { item: 'jam', quantity: i + 1 }, { token }),
        s.request('/api/x/echo/p?n=1', undefined, { token }),
      ]),
    );
    for (const [i, answer] of answers.entries()) {
      assert.equal(answer.status, 200);
      if (i % 2 === 1) assert.equal(answer.body.who, names[(i - 1) / 2]);
    }
    for (const [i, token] of tokens.entries()) {
      const own = await s.request('/api/collections/orders/records', undefined, { token });
      assert.deepEqual(
        own.body.items.map((r: { quantity: number }) => r.quantity),
        [i + 1],
      );
    }
    const count = await s.request('/api/x/orders/count?item=jam', undefined, { token: tokens[0] });
    assert.equal(count.body.orders, names.length);
  });

  test('each route is in /openapi.json and a generated client calls it; answers match their schemas', async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const placeOrder = doc.paths['/api/x/orders']?.post as {
      operationId: string;
      summary: string;
      tags: string[];
      security: unknown[];
      requestBody: { content: Record<string, { schema: { required: string[] } }> };
      responses: Record<string, { content: Record<string, { schema: object }> }>;
    };
    assert.equal(placeOrder.operationId, 'x_post_orders');
    assert.equal(placeOrder.summary, 'Place an order');
    assert.deepEqual(placeOrder.tags, ['extensions']);
    assert.deepEqual(placeOrder.security, [{ token: [] }, { bearer: [] }, { cookie: [] }]);
    assert.deepEqual(placeOrder.requestBody.content['application/json']?.schema.required, ['item', 'quantity']);
    const echo = doc.paths['/api/x/echo/{id}']?.get as { parameters: Array<{ name: string; in: string }> };
    assert.deepEqual(echo.parameters.map((p) => `${p.in}:${p.name}`).sort(), ['path:id', 'query:n', 'query:tags']);
    assert.equal(doc.paths['/api/x/echo/{id}']?.get?.security, undefined);

    const adminOnly = doc.paths['/api/x/admin-only']?.get as {
      responses: Record<string, { content: Record<string, { schema: { properties: object } }> }>;
    };
    assert.deepEqual(adminOnly.responses['200']?.content['application/json']?.schema.properties, {
      administers: { type: 'boolean' },
    });

    // biome-ignore lint/suspicious/noExplicitAny: paths known only from the served document
    const client = createClient<any>({ baseUrl: s.url });
    const token = await s.createUser('grace');
    const ajv = new Ajv2020({ strict: false });
    const answer = (path: string, method: 'get' | 'post', status: string) => {
      const op = doc.paths[path]?.[method] as {
        responses: Record<string, { content: Record<string, { schema: object }> }>;
      };
      const schema = op.responses[status]?.content['application/json']?.schema;
      assert.ok(schema, `${method} ${path} documents ${status}`);
      return ajv.compile(schema);
    };
    const placed = await client.POST('/api/x/orders', {
      headers: { 'x-auth-token': token },
      body: { item: 'tea', quantity: 3 },
    });
    assert.equal(placed.response.status, 200);
    assert.ok(answer('/api/x/orders', 'post', '200')(placed.data), 'the order matches its answer schema');
    const refused = await client.POST('/api/x/orders', { headers: { 'x-auth-token': token }, body: { item: 'tea' } });
    assert.equal(refused.response.status, 422);
    assert.ok(answer('/api/x/orders', 'post', '4XX')(refused.error), 'the refusal matches the failure schema');
    const echoed = await client.GET('/api/x/echo/{id}', { params: { path: { id: 'a b' }, query: { n: 7 } } });
    assert.deepEqual(echoed.data, { id: 'a b', n: 7, who: null });
    assert.ok(answer('/api/x/echo/{id}', 'get', '200')(echoed.data));

    // openapi-typescript types the routes from the document: the order's body and answer, the path parameter.
    const types = astToString(await openapiTS(new URL(`${s.url}/openapi.json`)));
    assert.match(types, /"\/api\/x\/orders": \{/);
    assert.match(types, /x_post_orders: \{[\s\S]*?item: string;[\s\S]*?quantity: number;[\s\S]*?id: string;/);
    assert.match(types, /x_get_echo_id: \{[\s\S]*?path: \{\s*id: string;/);

    // /metrics counts each route by its pattern, as Roost's own.
    const metrics = await s.request('/metrics', undefined, { token: await s.adminToken() });
    assert.match(metrics.body, /roost_http_requests_total\{method="GET",route="\/api\/x\/echo\/:id",status="200"\}/);
  });

  test('a wildcard path, a misspelt JSON Schema, a bad auth or time limit, a collision, a late declaration', () => {
    const { users, dataStores, fileStores, collections, mailQueue } = s.roost;
    const table = createExtensionRoutes({
      users,
      dataStores,
      fileStores,
      collections,
      mail: mailQueue,
      corsOrigins: [],
      jobs: s.roost.extensionJobs,
    });
    const routes = table.api;
    assert.throws(() => routes.get('/files/*', { auth: 'none' }, () => null), /extension route path "\/files\/\*"/);
    assert.throws(() => routes.get('/a/', { auth: 'none' }, () => null), /extension route path "\/a\/"/);
    assert.throws(
      () => routes.post('/b', { auth: 'none', input: { type: 'object', propertys: {} } }, () => null),
      /extension route POST \/api\/x\/b: its input schema: .*propertys/,
    );
    assert.throws(
      () => routes.get('/c', { auth: 'everyone' as 'none' }, () => null),
      /extension route GET \/api\/x\/c: auth is 'none', 'user' or 'admin'/,
    );
    assert.throws(
      () => routes.get('/d', { auth: 'none', timeoutSeconds: 0 }, () => null),
      /extension route GET \/api\/x\/d: timeoutSeconds is more than 0/,
    );
    // A route the app already serves at that method and path (none of Roost's is under /api/x).
    const app = Fastify();
    app.get('/api/x/taken', () => 'first');
    routes.get('/taken', { auth: 'none' }, () => null);
    assert.throws(() => table.register(app), /extension route GET \/api\/x\/taken collides with a route Roost/);
    assert.throws(() => routes.get('/e', { auth: 'none' }, () => null), /routes are declared at start/);
  });
});

describe('declaring routes: a mistake stops the start with the route named', () => {
  test('the start fails with the route named, having closed what it opened', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'roost-ext-'));
    // The PostgreSQL database can be dropped only once the failed start has closed its connections.
    const pg = process.env.ROOST_TEST_DIALECT === 'postgres' ? await createMigratedPostgresDatabase() : null;
    try {
      const config = parseConfig({ dataDir, logLevel: 'silent', ...pg?.settings });
      const twice = defineExtension((roost) => {
        roost.routes.post('/a', { auth: 'none' }, () => null);
        roost.routes.post('/a', { auth: 'user' }, () => null);
      });
      await assert.rejects(
        createRoost(config, { extensions: [twice] }),
        /extension route POST \/api\/x\/a is declared twice/,
      );
    } finally {
      await pg?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
