import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { datastore, type DataStore, type RoostError } from '../src/index.js';
import { dataStoreOperations } from '../../server/src/http/protocol/datastore-protocol.js';
import { Coverage, documentedOperations, startRoost, type TestServer } from './helpers/roost.js';

/** Every operation of a data store through the TypeScript connector in Node, against a real Roost. */

describe('datastore connector (Node)', () => {
  let s: TestServer;
  let alice: DataStore;
  let bob: DataStore;
  let admin: DataStore;
  const coverage = new Coverage();
  const connect = (token?: string, store = 'data') =>
    datastore(store, { baseUrl: s.url, onSuccess: coverage.onSuccess, ...(token ? { token } : {}) });

  before(async () => {
    s = await startRoost();
    alice = connect(await s.createUser('alice'));
    bob = connect(await s.createUser('bob'));
    admin = connect(await s.adminToken());
  });
  after(() => s.close());

  test('newItem: a key and a value, or items; success tuples [key, id, timestamp, n]', async () => {
    const one = await alice.newItem('color', 'blue');
    assert.equal(one.result, 1);
    const [key, id, timestamp, n] = one.success[0] ?? [];
    assert.deepEqual([key, typeof id, typeof timestamp, n], ['color', 'number', 'number', 1]);
    const two = await alice.newItem([
      { key: 'answer', value: 42 },
      { key: 'shape', value: 'round' },
    ]);
    assert.deepEqual(
      two.success.map((t) => t[0]),
      ['answer', 'shape'],
    );
    // An administrator creates an item for another owner.
    await admin.newItem('gift', 'for bob', { owner: 'bob' });
    assert.equal((await admin.getOwner('gift')).owner, 'bob');
  });

  test('getItem: one key (fields at the top level and in items), several keys, by id', async () => {
    const one = await bob.getItem('color');
    assert.equal(one.key, 'color');
    assert.equal(one.value, 'blue');
    assert.equal(one.owner, 'alice');
    assert.equal(typeof one.timestamp, 'number');
    assert.deepEqual(one.items, [
      { key: one.key, value: one.value, timestamp: one.timestamp, id: one.id, owner: 'alice' },
    ]);
    const several = await bob.getItem(['answer', 'color', 'missing']);
    assert.deepEqual(
      several.items.map((i) => [i.key, i.value]),
      [
        ['answer', 42],
        ['color', 'blue'],
      ],
    );
    assert.equal((await bob.getItem({ id: one.id })).key, 'color');
    assert.equal((await bob.getItem({ key: 'color', owner: 'alice' })).id, one.id);
    await assert.rejects(
      bob.getItem({ key: 'color', owner: 'bob' }),
      (e: RoostError) => e.status === 404 && e.code === 'item_not_found',
    );
  });

  test('setItem: by key (create or replace), as items, by id; owners keep their items', async () => {
    const replaced = await alice.setItem('color', 'green');
    assert.deepEqual([replaced.result, replaced.success[0]?.[0]], [1, 'color']);
    await alice.setItem([
      { key: 'shape', value: 'square' },
      { key: 'fresh', value: 1 },
    ]);
    const { id } = await alice.getItem('color');
    const byId = await alice.setItem({ id, value: 'teal' });
    assert.equal(byId.success[0]?.[0], id);
    assert.equal((await alice.getItem('color')).value, 'teal');
    assert.equal((await alice.getItem('fresh')).value, 1);
    await assert.rejects(
      bob.setItem('color', 'red'),
      (e: RoostError) => e.status === 403 && e.code === 'not_allowed' && e.body.result === 0,
    );
  });

  test('list and keys: paging, sort, order, owner and key filters', async () => {
    const all = await bob.list();
    assert.equal(all.total, 5);
    assert.deepEqual(
      all.items.map((i) => i.key),
      ['answer', 'color', 'fresh', 'gift', 'shape'],
    );
    const page = await bob.list({ sort: 'key', order: '>', start: 2, size: 2 });
    assert.deepEqual([page.items.map((i) => i.key), page.start, page.size, page.total], [['gift', 'fresh'], 2, 2, 5]);
    assert.deepEqual(
      (await bob.list({ owner: 'bob' })).items.map((i) => i.key),
      ['gift'],
    );
    assert.deepEqual(
      (await bob.list({ key: ['shape', 'answer'] })).items.map((i) => i.key),
      ['answer', 'shape'],
    );
    assert.deepEqual((await bob.list({ sort: 'value', size: 1 })).items[0]?.value, 1);
    const keys = await bob.keys({ order: '>', size: 3 });
    assert.deepEqual(keys, { keys: ['shape', 'gift', 'fresh'], start: 1, size: 3, total: 5 });
    assert.deepEqual((await bob.keys({ owner: 'alice' })).total, 4);
  });

  test('getOwner and setOwner', async () => {
    const one = await bob.getOwner('color');
    assert.deepEqual([one.key, one.owner], ['color', 'alice']);
    assert.deepEqual(
      (await bob.getOwner(['color', 'gift'])).items.map((i) => i.owner),
      ['alice', 'bob'],
    );
    const given = await admin.setOwner('bob', 'shape');
    assert.deepEqual([given.result, given.success[0]?.[0]], [1, 'shape']);
    assert.equal((await bob.getOwner({ key: 'shape' })).owner, 'bob');
    await assert.rejects(
      alice.setOwner('alice', 'gift'),
      (e: RoostError) => e.status === 403 && e.code === 'not_allowed',
    );
    await assert.rejects(
      admin.setOwner('nobody', 'gift'),
      (e: RoostError) => e.status === 422 && e.reason('newOwner') === 'unknown_user',
    );
  });

  test('removeItem: by key, by a list, by items; missing keys are not counted', async () => {
    assert.deepEqual(await alice.removeItem('fresh'), { result: 1, success: ['fresh'] });
    assert.deepEqual(await alice.removeItem(['answer', 'never']), { result: 1, success: ['answer'] });
    const { id } = await bob.getItem('shape');
    assert.deepEqual(await bob.removeItem({ items: [{ id }] }), { result: 1, success: [id] });
  });

  test('allowed, getPermissions, setPermissions, ping', async () => {
    assert.deepEqual(await bob.allowed(['getItem', 'setOwner']), { result: false, getItem: true, setOwner: false });
    assert.deepEqual(await connect().allowed('ping'), { result: true, ping: true });
    const entries = await admin.getPermissions();
    assert.deepEqual(entries.permissions.find((p) => p.permission === 'setItem')?.groups, ['sys:owner', 'admins']);
    const notes = connect(await s.adminToken(), 'notes');
    const changed = await notes.setPermissions({
      permission: 'list',
      groups: ['sys:owner', 'admins'],
      action: 'replace',
    });
    assert.deepEqual(changed.permissions.find((p) => p.permission === 'list')?.groups, ['sys:owner', 'admins']);
    // The other store keeps its own entries.
    assert.deepEqual((await admin.getPermissions()).permissions.find((p) => p.permission === 'list')?.groups, [
      'sys:authenticated',
      'admins',
    ]);
    assert.deepEqual(await connect().ping(), { result: 1 });
  });

  test('failures: an existing key (409), invalid items (422), too many items (413), anonymous (401)', async () => {
    await assert.rejects(
      bob.newItem([
        { key: 'size', value: 'L' },
        { key: 'color', value: 'red' },
      ]),
      (e: RoostError) => {
        assert.deepEqual([e.status, e.code, e.fields], [409, 'item_exists', [['color', 'exists']]]);
        return true;
      },
    );
    await assert.rejects(bob.getItem('size'), (e: RoostError) => e.code === 'item_not_found');
    await assert.rejects(
      bob.newItem([
        { key: '', value: 'x' },
        { key: 'obj', value: { a: 1 } as never },
      ]),
      (e: RoostError) => {
        assert.deepEqual(
          [e.status, e.code, e.fields],
          [
            422,
            'validation_failure',
            [
              ['items.0.key', 'required'],
              ['items.1.value', 'invalid'],
            ],
          ],
        );
        return true;
      },
    );
    const notes = connect(await s.createUser('carol'), 'notes');
    await assert.rejects(
      notes.newItem([
        { key: 'a', value: 1 },
        { key: 'b', value: 2 },
        { key: 'c', value: 3 },
      ]),
      (e: RoostError) => {
        assert.deepEqual([e.status, e.code, e.fields], [413, 'too_many_items', [['items', 'too many']]]);
        return true;
      },
    );
    await assert.rejects(
      connect().newItem('anonymous', 1),
      (e: RoostError) => e.status === 401 && e.code === 'not_signed_in',
    );
  });

  test('every operation of a data store was called through the connector', () => {
    const store = s.roost.dataStores.get('data');
    assert.ok(store);
    const routes = dataStoreOperations(store).map((r) => r.op);
    assert.deepEqual([...routes].sort(), [...documentedOperations('datastore')].sort());
    coverage.assertCalled(routes);
  });

  test('a store name is what Roost allows (one plain path segment)', () => {
    for (const name of ['', 'a/b', 'a b', 'x?y', '..', 'Data', '-data'])
      assert.throws(() => datastore(name, { baseUrl: s.url }), TypeError);
    assert.equal(datastore('my_store-2', { baseUrl: s.url }).name, 'my_store-2');
  });
});
