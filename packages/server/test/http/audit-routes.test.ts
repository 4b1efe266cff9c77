import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditedRoutes } from '../../src/http/audit-context.js';
import { dataStoreOperations } from '../../src/http/protocol/datastore-protocol.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/** `GET /x`, one per method of a route (Fastify's own HEAD routes left out: they answer as the GET). */
const entries = (routes: ReturnType<typeof auditedRoutes>, framed: boolean) =>
  routes
    .filter((r) => r.framed === framed)
    .flatMap((r) => (typeof r.method === 'string' ? [r.method] : r.method).map((m) => `${m} ${r.url}`))
    .filter((entry) => !entry.startsWith('HEAD '))
    .sort();

/**
 * The audit log's actor frame only where a write can happen (http/audit-context.ts; issue 42,
 * item 5): the routes that only read open none and pay for no hook (bench/RESULTS.md, "Operating
 * Roost (issue 42)"), every other route keeps it, so that every audited write is still recorded
 * with its administrator and address.
 */
describe('the audit frame, route by route', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ fileStores: { files: {} }, metrics: { enabled: true } });
  });
  after(() => s.close());

  test('the routes without a frame are exactly the reads; every route that can write has one', () => {
    const routes = auditedRoutes(s.roost.http);
    assert.ok(routes.length > 50, `the route table was read (${routes.length} routes)`);
    // The reads, as the protocol tables and the routes' own meaning say, not as the routes' config does.
    const dataReads = s.roost.dataStores.names.flatMap((name) => {
      const store = s.roost.dataStores.get(name);
      assert.ok(store);
      return dataStoreOperations(store)
        .filter((op) => op.read)
        .flatMap((op) => [`GET /${name}/api/${op.op}`, `POST /${name}/api/${op.op}`]);
    });
    const fileReads = ['ping', 'allowed'].flatMap((op) => [`GET /files/api/${op}`, `POST /files/api/${op}`]);
    const collectionReads = entries(routes, true)
      .concat(entries(routes, false))
      .filter((entry) => entry.startsWith('GET /api/collections'));
    const others = [
      'GET /health',
      'GET /ready',
      'GET /metrics',
      'GET /openapi.json',
      'GET /static/roost-client.js',
      'GET /api/realtime',
      // SCIM's reads (scim/scim-routes.ts); its writes are framed, recorded under the key's name.
      ...['ServiceProviderConfig', 'ResourceTypes', 'Schemas', 'Users', 'Groups']
        .flatMap((path) => (path === 'ServiceProviderConfig' ? [path] : [path, `${path}/:id`]))
        .map((path) => `GET /scim/v2/${path}`),
    ];
    assert.ok(dataReads.includes('GET /data/api/getItem') && collectionReads.length >= 3);
    assert.deepEqual(entries(routes, false), [...dataReads, ...fileReads, ...collectionReads, ...others].sort());
    // So every write is framed: the data store's writes, the file routes, the collections' writes,
    // the user service, the keys, the backend's pages.
    const framed = entries(routes, true);
    for (const write of [
      'POST /data/api/setItem',
      'GET /data/api/setItem',
      'POST /data/api/setPermissions',
      'POST /files/*',
      'POST /api/collections',
      'PUT /api/collections/:collection',
      'POST /users/api/setUser',
      'POST /api/keys',
      'POST /admin/settings',
      'PATCH /scim/v2/Users/:id',
    ])
      assert.ok(framed.includes(write), `${write} is framed`);
  });

  test("an administrator's reads record nothing; their writes on the same routes are recorded as theirs", async () => {
    const admin = await s.adminToken();
    const lines = async () => (await s.roost.audit.list({ limit: 1000 })).length;
    const before = await lines();
    for (const path of ['/data/api/getItem?key=none', '/data/api/list', '/api/collections', '/metrics'])
      assert.notEqual((await s.request(path, undefined, { token: admin, method: 'GET' })).status, 500, path);
    assert.equal(await lines(), before, 'reads leave no line');

    const changed = await s.request(
      '/data/api/setPermissions',
      { permissions: { permission: 'getItem', groups: ['readers'], action: 'replace' } },
      { token: admin },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const [line] = await s.roost.audit.list({ action: 'permissions.change', limit: 1 });
    assert.deepEqual([line?.actorName, line?.address, line?.target], ['admin', '127.0.0.1', 'data']);
  });
});
