import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';
import { ds } from '../helpers/datastore.js';

/**
 * On SQLite items read once are served from memory (datastore/item-cache.ts). Every way of
 * changing an item must be seen by the next read, also when reads and writes of one key
 * overlap. On PostgreSQL there is no cache and the same answers hold.
 */
describe('data store: every change is seen by the next read', () => {
  let owner: string;
  let admin: string;
  const s = useServer();
  before(async () => {
    owner = await s.createUser('cacheowner');
    admin = await s.adminToken();
  });

  const read = async (key: string) => ds(s, 'getItem', { key }, { token: owner });

  test('replace by key and by id, owner change and removal by id', async () => {
    const created = await ds(s, 'newItem', { key: 'c1', value: 'one' }, { token: owner });
    const id = created.body.success[0][1];
    assert.equal((await read('c1')).body.value, 'one');

    await ds(s, 'setItem', { key: 'c1', value: 'two' }, { token: owner });
    assert.equal((await read('c1')).body.value, 'two');

    await ds(s, 'setItem', { items: [{ id, value: 'three' }] }, { token: owner });
    assert.equal((await read('c1')).body.value, 'three');

    await ds(
      s,
      'setItem',
      {
        items: [
          { key: 'c1', value: 4 },
          { key: 'c2', value: 'new' },
        ],
      },
      { token: owner },
    );
    assert.equal((await read('c1')).body.value, 4);
    assert.equal((await read('c2')).body.value, 'new');

    await ds(s, 'setOwner', { key: 'c1', newOwner: 'admin' }, { token: admin });
    assert.equal((await read('c1')).status, 200, 'the store is readable by signed-in users');
    assert.equal((await ds(s, 'getOwner', { key: 'c1' }, { token: owner })).body.owner, 'admin');
    const replaced = await ds(s, 'setItem', { key: 'c1', value: 'not mine' }, { token: owner });
    assert.equal(replaced.status, 403, 'the former owner may no longer replace it');
    assert.equal((await read('c1')).body.value, 4);

    await ds(s, 'removeItem', { id }, { token: admin });
    assert.equal((await read('c1')).status, 404);
    await ds(s, 'removeItem', { key: 'c2' }, { token: owner });
    assert.equal((await read('c2')).status, 404);
    await ds(s, 'newItem', { key: 'c2', value: 'again' }, { token: owner });
    assert.equal((await read('c2')).body.value, 'again');
  });

  test('reads overlapping writes of one key end with the last written value', async () => {
    await ds(s, 'newItem', { key: 'hot', value: -1 }, { token: owner });
    for (let round = 0; round < 5; round++) {
      const calls = Array.from({ length: 40 }, (_, i) =>
        i % 4 === 0 ? ds(s, 'setItem', { key: 'hot', value: round * 100 + i }, { token: owner }) : read('hot'),
      );
      await Promise.all(calls);
      const last = round * 100 + 36;
      await ds(s, 'setItem', { key: 'hot', value: last }, { token: owner });
      const after = await Promise.all(Array.from({ length: 10 }, () => read('hot')));
      assert.deepEqual(new Set(after.map((r) => r.body.value)), new Set([last]));
    }
  });

  test('a failed all-or-nothing batch leaves the read values as they were', async () => {
    await ds(s, 'newItem', { key: 'keep', value: 'kept' }, { token: owner });
    assert.equal((await read('keep')).body.value, 'kept');
    const refused = await ds(
      s,
      'newItem',
      {
        items: [
          { key: 'fresh', value: 1 },
          { key: 'keep', value: 'lost' },
        ],
      },
      { token: owner },
    );
    assert.equal(refused.status, 409);
    assert.equal((await read('keep')).body.value, 'kept');
    assert.equal((await read('fresh')).status, 404);
  });
});

describe('data store: owners are shown by name', () => {
  const now = Date.now();
  const clock = { now: () => now };
  const s = useServer({}, { clock });

  test('the name of a removed account gives way to "" at once, though the clock stands still', async () => {
    const token = await s.createUser('leaving');
    const admin = await s.adminToken();
    await ds(s, 'newItem', { key: 'left', value: 'behind' }, { token });
    assert.equal((await ds(s, 'getItem', { key: 'left' }, { token: admin })).body.owner, 'leaving');
    assert.deepEqual(
      (await ds(s, 'list', {}, { token: admin })).body.items.map((i: { owner: string }) => i.owner),
      ['leaving'],
    );
    await s.users('removeUser', { identity: 'leaving' }, { token: admin });
    assert.deepEqual(
      (await ds(s, 'list', {}, { token: admin })).body.items.map((i: { owner: string }) => i.owner),
      [''],
      'lists show it',
    );
    const item = await ds(s, 'getItem', { key: 'left' }, { token: admin });
    assert.equal(item.body.owner, '');
    assert.equal(item.body.value, 'behind', 'the item stays');
  });
});

/**
 * Items and file entries keep their owners as user ids and show names, which the user service's
 * directory keeps in memory (users/user-directory.ts): a rename or a removal is an account event
 * that makes it forget the name, so the next answer shows the new one, though names and items
 * would otherwise be kept a minute here.
 */
describe("owners' names follow a rename and a removal at once", () => {
  let admin: string;
  const s = useServer({ users: { sessionCacheSeconds: 60 } });
  before(async () => {
    admin = await s.adminToken();
  });

  const rename = async (from: string, to: string) =>
    assert.equal((await s.users('setUser', { identity: from, values: { name: to } }, { token: admin })).status, 200);

  test('getItem, list and getOwner show the new name; a removed owner shows none', async () => {
    const token = await s.createUser('namedbefore');
    await ds(s, 'newItem', { key: 'named', value: 'v' }, { token });
    assert.equal((await s.request('/files/api/@newItem', { name: 'named.txt', contents: 'x' }, { token })).status, 200);
    const owners = async () => [
      (await ds(s, 'getItem', { key: 'named' }, { token: admin })).body.owner,
      (await ds(s, 'list', { owner: 'namedafter' }, { token: admin })).body.items?.[0]?.owner ?? null,
      (await s.request('/files/api/named.txt/@getOwner', {}, { token: admin })).body.owner,
    ];
    assert.deepEqual(await owners(), ['namedbefore', null, 'namedbefore']);
    await rename('namedbefore', 'namedafter');
    assert.deepEqual(await owners(), ['namedafter', 'namedafter', 'namedafter']);
    assert.equal((await s.users('removeUser', { identity: 'namedafter' }, { token: admin })).status, 200);
    assert.deepEqual(
      [
        (await ds(s, 'getItem', { key: 'named' }, { token: admin })).body.owner,
        (await s.request('/files/api/named.txt/@getOwner', {}, { token: admin })).body.owner,
      ],
      ['', ''],
    );
  });
});
