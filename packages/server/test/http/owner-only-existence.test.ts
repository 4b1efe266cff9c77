import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';
import { ds } from '../helpers/datastore.js';

/**
 * A known limit (docs/security.md, "Known limits"): a store has one namespace of keys (paths),
 * so even where every read is for the owner only, creating a key that another user holds must
 * fail, and the failure says the key exists. This pins today's answers, so that a change of
 * them is a decision and not an accident.
 */
describe("owner-only stores: existence of another user's key shows on create", () => {
  let alice: string;
  let bob: string;
  const s = useServer();
  before(async () => {
    const admin = await s.adminToken();
    alice = await s.createUser('alice');
    bob = await s.createUser('bob');
    const ownerOnly = (ops: string[]) =>
      ops.map((permission) => ({ permission, groups: ['sys:owner', 'admins'], action: 'replace' }));
    assert.equal(
      (
        await ds(
          s,
          'setPermissions',
          { permissions: ownerOnly(['getItem', 'list', 'keys', 'getOwner']) },
          { token: admin },
        )
      ).body.result,
      true,
    );
    const files = await s.request(
      '/files/@setPermissions',
      { permissions: ownerOnly(['getItem', 'read', 'list']) },
      { token: admin },
    );
    assert.equal(files.body.result, true, JSON.stringify(files.body));
    assert.equal((await ds(s, 'newItem', { key: 'hidden', value: 'alice only' }, { token: alice })).status, 200);
    assert.equal(
      (
        await s.request(
          '/files/api/@newItem',
          { name: 'hidden.txt', type: 'f', contents: 'alice only' },
          { token: alice },
        )
      ).status,
      200,
    );
  });

  test('reads answer as for a missing key', async () => {
    assert.equal((await ds(s, 'getItem', { key: 'hidden' }, { token: bob })).status, 404);
    assert.equal((await s.request('/files/api/hidden.txt/@getItem', {}, { token: bob })).status, 404);
  });

  test('data store: newItem answers 409 item_exists, setItem 404; nothing changes', async () => {
    const created = await ds(s, 'newItem', { key: 'hidden', value: 'bob' }, { token: bob });
    assert.equal(created.status, 409);
    const set = await ds(s, 'setItem', { key: 'hidden', value: 'bob' }, { token: bob });
    assert.equal(set.status, 404);
    assert.equal((await ds(s, 'getItem', { key: 'hidden' }, { token: alice })).body.value, 'alice only');
  });

  test('file store: newItem answers 422 with name exists; nothing changes', async () => {
    const created = await s.request(
      '/files/api/@newItem',
      { name: 'hidden.txt', type: 'f', contents: 'bob' },
      { token: bob },
    );
    assert.equal(created.status, 422);
    assert.deepEqual(created.body.invalid, [['name', 'exists']]);
    const read = await fetch(`${s.url}/files/hidden.txt`, { headers: { 'x-auth-token': alice } });
    assert.equal(await read.text(), 'alice only');
  });
});
