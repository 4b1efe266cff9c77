import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';
import { ds } from '../helpers/datastore.js';

describe('data store: items', () => {
  let alice: string;
  const s = useServer({ dataStores: { data: {}, other: {} } });
  before(async () => {
    alice = await s.createUser('alice');
  });

  describe('newItem', () => {
    test('a list of items: each stored with id, timestamp and the caller as owner', async () => {
      const before = Date.now() / 1000;
      const res = await ds(
        s,
        'newItem',
        {
          items: [
            { key: 'n1', value: 'one' },
            { key: 'n2', value: 2 },
          ],
        },
        { token: alice },
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.result, 2);
      assert.equal(res.body.success.length, 2);
      const [first, second] = res.body.success;
      assert.equal(first[0], 'n1');
      assert.equal(typeof first[1], 'number');
      assert.ok(first[2] >= before - 1 && first[2] <= Date.now() / 1000 + 1, 'timestamp in float seconds');
      assert.equal(first[3], 1);
      assert.deepEqual([second[0], second[3]], ['n2', 2]);
      const got = await ds(s, 'getItem', { key: 'n2' }, { token: alice });
      assert.equal(got.body.value, 2, 'a number stays a number');
      assert.equal(got.body.owner, 'alice');
      assert.equal(got.body.id, first[1] + 1);
    });

    test('one object as items, and key/value at the top level', async () => {
      const one = await ds(s, 'newItem', { items: { key: 'n3', value: 'three' } }, { token: alice });
      assert.equal(one.body.result, 1);
      const top = await ds(s, 'newItem', { key: 'n4', value: 4.5 }, { token: alice });
      assert.equal(top.status, 200);
      assert.deepEqual(
        top.body.success.map((x: unknown[]) => x[0]),
        ['n4'],
      );
      assert.equal((await ds(s, 'getItem', { key: 'n4' }, { token: alice })).body.value, 4.5);
    });

    test('all or nothing: one existing key stores nothing and answers 409 with the existing keys', async () => {
      const res = await ds(
        s,
        'newItem',
        {
          items: [
            { key: 'fresh', value: 1 },
            { key: 'n1', value: 'again' },
            { key: 'n3', value: 'x' },
          ],
        },
        { token: alice },
      );
      assert.equal(res.status, 409);
      assert.equal(res.body.result, 0);
      assert.deepEqual(res.body.success, []);
      assert.equal(res.body.code, 'item_exists');
      assert.deepEqual(res.body.invalid.map((p: string[]) => p[0]).sort(), ['n1', 'n3']);
      assert.equal((await ds(s, 'getItem', { key: 'fresh' }, { token: alice })).status, 404);
      assert.equal(
        (await ds(s, 'getItem', { key: 'n1' }, { token: alice })).body.value,
        'one',
        'the existing item is unchanged',
      );
    });

    test('the same key twice in one call is invalid', async () => {
      const res = await ds(
        s,
        'newItem',
        {
          items: [
            { key: 'twice', value: 1 },
            { key: 'twice', value: 2 },
          ],
        },
        { token: alice },
      );
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.invalid, [['items.1.key', 'duplicate']]);
      assert.equal((await ds(s, 'getItem', { key: 'twice' }, { token: alice })).status, 404);
    });

    test('form fields and GET query work too', async () => {
      const form = await s.request('/data/api/newItem', undefined, {
        method: 'POST',
        token: alice,
        raw: 'key=formkey&value=from%20a%20form',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.status, 200);
      assert.equal(form.body.result, 1);
      const get = await s.request('/data/api/newItem?key=querykey&value=q', undefined, { token: alice });
      assert.equal(get.status, 200);
      const read = await s.request('/data/api/getItem?key=formkey', undefined, { token: alice });
      assert.equal(read.body.value, 'from a form');
    });
  });

  describe('getItem', () => {
    test('one key: the bare item and a one-item items list', async () => {
      const res = await ds(s, 'getItem', { key: 'n1' }, { token: alice });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['id', 'items', 'key', 'owner', 'timestamp', 'value']);
      assert.equal(res.body.key, 'n1');
      assert.equal(res.body.value, 'one');
      assert.equal(typeof res.body.timestamp, 'number');
      assert.deepEqual(res.body.items, [
        { key: 'n1', value: 'one', timestamp: res.body.timestamp, id: res.body.id, owner: 'alice' },
      ]);
    });

    test('text and numbers of every sort come back as stored, through getItem and list (schema-written)', async () => {
      const values = [
        'back\\slash "quote"',
        1e21,
        0,
        -0.000123,
        Number.MAX_SAFE_INTEGER,
        'line\nbreak\ttab "quoted" \u0001 control, emoji 🦉, é',
        '</script><script>alert(1)</script>',
        '',
      ];
      const items = values.map((value, i) => ({ key: `kind${i}`, value }));
      const created = await ds(s, 'newItem', { items }, { token: alice });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      for (const { key, value } of items) {
        const res = await ds(s, 'getItem', { key }, { token: alice });
        assert.deepEqual(res.body.value, value, key);
        assert.deepEqual(res.body.items[0].value, value, key);
      }
      const listed = await ds(s, 'list', { prefix: 'kind', size: 20 }, { token: alice });
      assert.deepEqual(Object.keys(listed.body).sort(), ['items', 'size', 'start', 'total']);
      assert.deepEqual(
        listed.body.items.map((i: { key: string; value: unknown }) => [i.key, i.value]),
        items.map((i) => [i.key, i.value]),
      );
      assert.deepEqual(Object.keys(listed.body.items[0]).sort(), ['id', 'key', 'owner', 'timestamp', 'value']);
    });

    test('a list of keys: the items that exist, in the asked order', async () => {
      const res = await ds(s, 'getItem', { key: ['n3', 'missing', 'n1'] }, { token: alice });
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.items.map((i: { key: string }) => i.key),
        ['n3', 'n1'],
      );
      assert.equal(res.body.key, undefined);
    });

    test('by id, one or a list; the query string id as text', async () => {
      const { body } = await ds(s, 'getItem', { key: 'n1' }, { token: alice });
      const byId = await ds(s, 'getItem', { id: body.id }, { token: alice });
      assert.equal(byId.body.key, 'n1');
      const query = await s.request(`/data/api/getItem?id=${body.id}`, undefined, { token: alice });
      assert.equal(query.body.key, 'n1');
      const list = await ds(s, 'getItem', { id: [body.id, 999999] }, { token: alice });
      assert.deepEqual(
        list.body.items.map((i: { key: string }) => i.key),
        ['n1'],
      );
    });

    test('a missing key answers 404 item_not_found', async () => {
      const res = await ds(s, 'getItem', { key: 'nope' }, { token: alice });
      assert.equal(res.status, 404);
      assert.equal(res.body.result, false);
      assert.equal(res.body.code, 'item_not_found');
      assert.equal((await ds(s, 'getItem', { id: 424242 }, { token: alice })).status, 404);
    });

    test('GET with several key parameters is a list', async () => {
      const res = await s.request('/data/api/getItem?key=n1&key=n3', undefined, { token: alice });
      assert.deepEqual(
        res.body.items.map((i: { key: string }) => i.key),
        ['n1', 'n3'],
      );
    });

    test('null fields count as absent (the Python connector sends them)', async () => {
      const res = await ds(s, 'getItem', { key: 'n1', id: null, owner: null }, { token: alice });
      assert.equal(res.status, 200);
      assert.equal(res.body.key, 'n1');
    });
  });

  describe('setItem', () => {
    test('creates a missing key and replaces an existing one, keeping id and owner', async () => {
      const before = (await ds(s, 'getItem', { key: 'n1' }, { token: alice })).body;
      const res = await ds(
        s,
        'setItem',
        {
          items: [
            { key: 'n1', value: 'ONE' },
            { key: 's1', value: 10 },
          ],
        },
        { token: alice },
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.result, 2);
      assert.deepEqual(
        res.body.success.map((x: unknown[]) => [x[0], x[2]]),
        [
          ['n1', 1],
          ['s1', 2],
        ],
      );
      assert.equal(typeof res.body.success[0][1], 'number');
      const after = (await ds(s, 'getItem', { key: 'n1' }, { token: alice })).body;
      assert.equal(after.value, 'ONE');
      assert.equal(after.id, before.id);
      assert.equal(after.owner, before.owner);
      assert.ok(after.timestamp >= before.timestamp);
      assert.equal((await ds(s, 'getItem', { key: 's1' }, { token: alice })).body.value, 10);
    });

    test('one object, a top-level key/value, and an id', async () => {
      assert.equal((await ds(s, 'setItem', { items: { key: 's2', value: 'a' } }, { token: alice })).body.result, 1);
      assert.equal((await ds(s, 'setItem', { key: 's2', value: 'b' }, { token: alice })).body.result, 1);
      const { id } = (await ds(s, 'getItem', { key: 's2' }, { token: alice })).body;
      const byId = await ds(s, 'setItem', { id, value: 'c' }, { token: alice });
      assert.equal(byId.status, 200);
      assert.equal(byId.body.success[0][0], id);
      assert.equal((await ds(s, 'getItem', { key: 's2' }, { token: alice })).body.value, 'c');
    });

    test('an unknown id is 404 and nothing of the call is stored', async () => {
      const res = await ds(
        s,
        'setItem',
        {
          items: [
            { key: 's3', value: 1 },
            { id: 987654, value: 2 },
          ],
        },
        { token: alice },
      );
      assert.equal(res.status, 404);
      assert.equal(res.body.result, 0);
      assert.deepEqual(res.body.success, []);
      assert.deepEqual(res.body.invalid, [['items.1.id', 'not found']]);
      assert.equal((await ds(s, 'getItem', { key: 's3' }, { token: alice })).status, 404);
    });
  });

  describe('removeItem', () => {
    test('by key, by id, by list and by items; result counts the removed', async () => {
      await ds(
        s,
        'newItem',
        { items: ['r1', 'r2', 'r3', 'r4', 'r5'].map((key) => ({ key, value: key })) },
        { token: alice },
      );
      const one = await ds(s, 'removeItem', { key: 'r1' }, { token: alice });
      assert.deepEqual(one.body, { result: 1, success: ['r1'] });
      const { id } = (await ds(s, 'getItem', { key: 'r2' }, { token: alice })).body;
      assert.deepEqual((await ds(s, 'removeItem', { id }, { token: alice })).body, { result: 1, success: [id] });
      assert.deepEqual((await ds(s, 'removeItem', { key: ['r3', 'gone'] }, { token: alice })).body, {
        result: 1,
        success: ['r3'],
      });
      assert.deepEqual((await ds(s, 'removeItem', { items: [{ key: 'r4' }, { key: 'r5' }] }, { token: alice })).body, {
        result: 2,
        success: ['r4', 'r5'],
      });
      assert.equal((await ds(s, 'getItem', { key: 'r5' }, { token: alice })).status, 404);
    });

    test('a missing key removes nothing: result 0', async () => {
      const res = await ds(s, 'removeItem', { key: 'never-there' }, { token: alice });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { result: 0, success: [] });
    });

    test('a removed key can be created again, with a new id', async () => {
      const first = await ds(s, 'newItem', { key: 'again', value: 1 }, { token: alice });
      await ds(s, 'removeItem', { key: 'again' }, { token: alice });
      const second = await ds(s, 'newItem', { key: 'again', value: 2 }, { token: alice });
      assert.equal(second.status, 200);
      assert.ok(second.body.success[0][1] > first.body.success[0][1], 'ids are never reused');
    });
  });

  describe('stores are isolated', () => {
    test('the same key in two stores is two items', async () => {
      await ds(s, 'newItem', { key: 'shared', value: 'in data' }, { token: alice });
      const other = await ds(s, 'newItem', { key: 'shared', value: 'in other' }, { token: alice, store: 'other' });
      assert.equal(other.status, 200, 'the key exists only in the other store');
      assert.equal((await ds(s, 'getItem', { key: 'shared' }, { token: alice })).body.value, 'in data');
      assert.equal(
        (await ds(s, 'getItem', { key: 'shared' }, { token: alice, store: 'other' })).body.value,
        'in other',
      );
      await ds(s, 'removeItem', { key: 'shared' }, { token: alice, store: 'other' });
      assert.equal((await ds(s, 'getItem', { key: 'shared' }, { token: alice })).status, 200);
      const keys = await ds(s, 'keys', {}, { token: alice, store: 'other' });
      assert.deepEqual(keys.body.keys, []);
    });

    test('an id of one store does not reach into another', async () => {
      const { id } = (await ds(s, 'getItem', { key: 'shared' }, { token: alice })).body;
      assert.equal((await ds(s, 'getItem', { id }, { token: alice, store: 'other' })).status, 404);
    });

    test('permission entries are per store', async () => {
      const admin = await s.adminToken();
      await ds(
        s,
        'setPermissions',
        { permissions: { permission: 'getItem', group: 'sys:everyone', action: 'replace' } },
        { token: admin, store: 'other' },
      );
      await ds(s, 'newItem', { key: 'pub', value: 1 }, { token: alice, store: 'other' });
      assert.equal((await ds(s, 'getItem', { key: 'pub' }, { store: 'other' })).status, 200);
      assert.equal((await ds(s, 'getItem', { key: 'shared' })).status, 401);
    });

    test('an unknown store or operation is 404', async () => {
      assert.equal((await s.request('/nostore/api/getItem', {}, { token: alice })).status, 404);
      assert.equal((await ds(s, 'frobnicate', {}, { token: alice })).status, 404);
    });
  });

  test('ping answers result 1 to anybody, GET and POST', async () => {
    assert.deepEqual((await s.request('/data/api/ping')).body, { result: 1 });
    assert.deepEqual((await ds(s, 'ping')).body, { result: 1 });
  });

  test('every operation of every store is in /openapi.json, once', async () => {
    const { body } = await s.request('/openapi.json');
    for (const store of ['data', 'other']) {
      for (const op of [
        'getItem',
        'newItem',
        'setItem',
        'removeItem',
        'list',
        'keys',
        'allowed',
        'getPermissions',
        'setPermissions',
        'getOwner',
        'setOwner',
        'ping',
      ]) {
        const path = body.paths[`/${store}/api/${op}`];
        assert.ok(path?.post && !path.get, `${store} ${op}`);
      }
    }
  });

  test('answers are not cached', async () => {
    const res = await ds(s, 'getItem', { key: 'n1' }, { token: alice });
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });
});
