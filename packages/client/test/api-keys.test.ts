import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { collections, datastore, RoostError, users } from '../src/index.js';
import { startRoost, type TestServer } from './helpers/roost.js';

/**
 * Issue 42, item 4: the TypeScript connector takes an API key (`apiKey`), sent as
 * `Authorization: Bearer`; within its scopes every call works, outside them it fails with
 * `not_allowed`, and once revoked with `invalid_api_key`.
 */
describe('connectors with an API key', () => {
  let s: TestServer;
  let key = '';
  let id = '';
  before(async () => {
    s = await startRoost();
    const made = await s.request(
      '/api/keys',
      {
        name: 'client',
        scopes: [
          { kind: 'store', name: 'data', access: ['read', 'write'] },
          { kind: 'collection', name: '*', access: ['read'] },
        ],
      },
      { token: await s.adminToken() },
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    key = made.body.token;
    id = made.body.key.id;
  });
  after(() => s.close());

  test('within its scopes the calls work; outside them they fail with not_allowed', async () => {
    const data = datastore('data', { baseUrl: s.url, apiKey: key });
    assert.equal((await data.newItem('from-a-key', 'hello')).result, 1);
    assert.equal((await data.getItem('from-a-key')).value, 'hello');
    const notes = datastore('notes', { baseUrl: s.url, apiKey: key });
    const refused = await notes.getItem('x').catch((e: unknown) => e);
    assert.ok(refused instanceof RoostError);
    assert.equal(refused.code, 'not_allowed');
    assert.equal(refused.status, 403);
    const listed = await collections({ baseUrl: s.url, apiKey: key }).collection('posts').list();
    assert.ok(Array.isArray(listed.items));
    assert.throws(() => datastore('data', { baseUrl: s.url, apiKey: 'not-a-key' }), TypeError);
  });

  test('a revoked key fails every call with invalid_api_key', async () => {
    const data = datastore('data', { baseUrl: s.url, apiKey: key });
    const answer = await s.request(`/api/keys/${id}`, undefined, { method: 'DELETE', token: await s.adminToken() });
    assert.equal(answer.status, 200);
    for (const call of [data.getItem('from-a-key'), users({ baseUrl: s.url, apiKey: key }).ping()]) {
      const failed = await call.catch((e: unknown) => e);
      assert.ok(failed instanceof RoostError);
      assert.equal(failed.code, 'invalid_api_key');
      assert.equal(failed.status, 401);
    }
  });
});
