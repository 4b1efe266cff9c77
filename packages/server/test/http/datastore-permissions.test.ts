import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD, useServer } from '../helpers/test-server.js';
import { ds, userIdOf } from '../helpers/datastore.js';

/** One call of every operation that needs a permission, with a valid body. */
const CALLS: Array<[op: string, body: Record<string, unknown>]> = [
  ['getItem', { key: 'a1' }],
  ['newItem', { key: 'anon-new', value: 1 }],
  ['setItem', { key: 'a1', value: 'x' }],
  ['removeItem', { key: 'a1' }],
  ['list', {}],
  ['keys', {}],
  ['getOwner', { key: 'a1' }],
  ['setOwner', { key: 'a1', newOwner: 'bob' }],
  ['getPermissions', {}],
  ['setPermissions', { permissions: [{ permission: 'getItem', groups: ['sys:everyone'], action: 'replace' }] }],
];

describe('data store: permissions and owners', () => {
  let admin: string;
  let alice: string;
  let bob: string;
  let aliceId: string;
  const replace = (permission: string, groups: string[], store = 'data') =>
    ds(s, 'setPermissions', { permissions: [{ permission, groups, action: 'replace' }] }, { token: admin, store });

  const s = useServer({ dataStores: { data: {}, public: { read: 'sys:everyone' }, closed: {} } });
  before(async () => {
    admin = await s.adminToken();
    alice = await s.createUser('alice');
    bob = await s.createUser('bob');
    aliceId = await userIdOf(s, alice);
    await ds(
      s,
      'newItem',
      {
        items: [
          { key: 'a1', value: 'alice 1' },
          { key: 'a2', value: 'alice 2' },
        ],
      },
      { token: alice },
    );
    await ds(s, 'newItem', { items: [{ key: 'b1', value: 'bob 1' }] }, { token: bob });
  });

  describe('anonymous callers', () => {
    for (const [op, body] of CALLS) {
      test(`${op}: 401 not_signed_in, nothing changed`, async () => {
        const res = await ds(s, op, body);
        assert.equal(res.status, 401);
        assert.equal(res.body.code, 'not_signed_in');
        assert.equal(res.headers.get('www-authenticate'), 'Bearer');
        if (['newItem', 'setItem', 'removeItem', 'setOwner'].includes(op)) {
          assert.equal(res.body.result, 0);
          assert.deepEqual(res.body.success, []);
        } else {
          assert.equal(res.body.result, false);
        }
      });
    }
    test('the refused calls changed nothing', async () => {
      const res = await ds(s, 'getItem', { key: 'a1' }, { token: alice });
      assert.equal(res.body.value, 'alice 1');
      assert.equal(res.body.owner, 'alice');
      assert.equal((await ds(s, 'getItem', { key: 'anon-new' }, { token: alice })).status, 404);
    });
    test('an invalid token is anonymous', async () => {
      assert.equal((await ds(s, 'getItem', { key: 'a1' }, { token: 'not-a-token' })).status, 401);
    });
    test('allowed and ping are open', async () => {
      const res = await ds(s, 'allowed', { permissions: ['getItem', 'ping', 'newItem'] });
      assert.deepEqual(res.body, { result: false, getItem: false, ping: true, newItem: false });
      assert.equal((await ds(s, 'ping')).status, 200);
    });
    test('a public store (read: sys:everyone) lets anonymous callers read, not write', async () => {
      await ds(s, 'newItem', { key: 'p1', value: 'public' }, { token: alice, store: 'public' });
      assert.equal((await ds(s, 'getItem', { key: 'p1' }, { store: 'public' })).body.value, 'public');
      assert.equal((await ds(s, 'list', {}, { store: 'public' })).body.total, 1);
      assert.deepEqual((await ds(s, 'keys', {}, { store: 'public' })).body.keys, ['p1']);
      assert.equal((await ds(s, 'getOwner', { key: 'p1' }, { store: 'public' })).body.owner, 'alice');
      assert.equal((await ds(s, 'newItem', { key: 'p2', value: 1 }, { store: 'public' })).status, 401);
      assert.equal((await ds(s, 'getItem', { key: 'nope' }, { store: 'public' })).status, 404);
    });
  });

  describe('owners and non-owners (defaults)', () => {
    test('any signed-in user reads every item', async () => {
      assert.equal((await ds(s, 'getItem', { key: 'a1' }, { token: bob })).status, 200);
      assert.equal((await ds(s, 'list', {}, { token: bob })).body.total, 3);
    });
    test('a non-owner may not replace or remove: 403, nothing changed', async () => {
      const set = await ds(s, 'setItem', { key: 'a1', value: 'by bob' }, { token: bob });
      assert.equal(set.status, 403);
      assert.equal(set.body.code, 'not_allowed');
      assert.equal(set.body.result, 0);
      const rm = await ds(s, 'removeItem', { key: 'a1' }, { token: bob });
      assert.equal(rm.status, 403);
      const batch = await ds(
        s,
        'setItem',
        {
          items: [
            { key: 'b1', value: 'own' },
            { key: 'a2', value: 'not own' },
          ],
        },
        { token: bob },
      );
      assert.equal(batch.status, 403, 'one foreign item refuses the whole call');
      assert.equal((await ds(s, 'getItem', { key: 'b1' }, { token: bob })).body.value, 'bob 1');
      assert.equal((await ds(s, 'getItem', { key: 'a1' }, { token: bob })).body.value, 'alice 1');
    });
    test('the owner replaces and removes its own items; setItem of a new key is a creation', async () => {
      assert.equal((await ds(s, 'setItem', { key: 'b1', value: 'bob 1b' }, { token: bob })).status, 200);
      const created = await ds(s, 'setItem', { key: 'b2', value: 'new' }, { token: bob });
      assert.equal(created.status, 200);
      assert.equal((await ds(s, 'getOwner', { key: 'b2' }, { token: alice })).body.owner, 'bob');
      assert.deepEqual((await ds(s, 'removeItem', { key: 'b2' }, { token: bob })).body, { result: 1, success: ['b2'] });
    });
    test('administrators replace and remove any item', async () => {
      await ds(s, 'newItem', { key: 'a3', value: 1 }, { token: alice });
      assert.equal((await ds(s, 'setItem', { key: 'a3', value: 2 }, { token: admin })).status, 200);
      const got = await ds(s, 'getItem', { key: 'a3' }, { token: alice });
      assert.equal(got.body.value, 2);
      assert.equal(got.body.owner, 'alice', 'replacing keeps the owner');
      assert.equal((await ds(s, 'removeItem', { key: 'a3' }, { token: admin })).body.result, 1);
    });
    test('newItem for another owner needs setOwner; an administrator may', async () => {
      const res = await ds(s, 'newItem', { key: 'gift', value: 1, owner: 'bob' }, { token: alice });
      assert.equal(res.status, 403);
      assert.equal((await ds(s, 'getItem', { key: 'gift' }, { token: alice })).status, 404);
      const self = await ds(s, 'newItem', { key: 'self', value: 1, owner: aliceId }, { token: alice });
      assert.equal(self.status, 200, 'naming oneself is fine');
      const byAdmin = await ds(s, 'newItem', { items: [{ key: 'gift', value: 1, owner: 'bob' }] }, { token: admin });
      assert.equal(byAdmin.status, 200);
      assert.equal((await ds(s, 'getOwner', { key: 'gift' }, { token: bob })).body.owner, 'bob');
      const unknown = await ds(
        s,
        'newItem',
        { items: [{ key: 'gift2', value: 1, owner: 'nobody' }] },
        { token: admin },
      );
      assert.equal(unknown.status, 422);
      assert.deepEqual(unknown.body.invalid, [['items.0.owner', 'unknown_user']]);
    });
    test('owner as a filter: getItem and removeItem of an item with another owner find nothing', async () => {
      assert.equal((await ds(s, 'getItem', { key: 'a1', owner: 'bob' }, { token: bob })).status, 404);
      assert.equal((await ds(s, 'getItem', { key: 'a1', owner: 'alice' }, { token: bob })).status, 200);
      assert.deepEqual((await ds(s, 'removeItem', { items: [{ key: 'a1', owner: 'bob' }] }, { token: admin })).body, {
        result: 0,
        success: [],
      });
    });
  });

  describe('getOwner and setOwner', () => {
    test('getOwner by key, list and id', async () => {
      const one = await ds(s, 'getOwner', { key: 'a1' }, { token: bob });
      assert.equal(one.status, 200);
      assert.equal(one.body.owner, 'alice');
      assert.equal(one.body.key, 'a1');
      assert.deepEqual(one.body.items, [{ key: 'a1', owner: 'alice', id: one.body.id }]);
      const list = await ds(s, 'getOwner', { key: ['a1', 'b1'] }, { token: bob });
      assert.deepEqual(
        list.body.items.map((i: { owner: string }) => i.owner),
        ['alice', 'bob'],
      );
      const byId = await ds(s, 'getOwner', { id: one.body.id }, { token: bob });
      assert.equal(byId.body.key, 'a1');
      assert.equal((await ds(s, 'getOwner', { key: 'nope' }, { token: bob })).status, 404);
    });
    test('setOwner is for administrators', async () => {
      const res = await ds(s, 'setOwner', { key: 'a2', newOwner: 'bob' }, { token: alice });
      assert.equal(res.status, 403, 'not even the owner gives an item away by default');
      assert.equal(res.body.result, 0);
    });
    test('newOwner (Python) and owner (jQuery) give items away; the new owner may then change them', async () => {
      await ds(
        s,
        'newItem',
        {
          items: [
            { key: 'o1', value: 1 },
            { key: 'o2', value: 2 },
          ],
        },
        { token: alice },
      );
      const py = await ds(s, 'setOwner', { key: 'o1', newOwner: 'bob' }, { token: admin });
      assert.equal(py.status, 200);
      assert.equal(py.body.result, 1);
      assert.equal(py.body.success[0][0], 'o1');
      assert.equal(typeof py.body.success[0][1], 'number');
      assert.equal(py.body.success[0][2], 1);
      const jq = await ds(s, 'setOwner', { key: 'o2', owner: 'bob@example.com' }, { token: admin });
      assert.equal(jq.body.result, 1);
      assert.equal((await ds(s, 'setItem', { key: 'o1', value: 'bob now' }, { token: bob })).status, 200);
      assert.equal((await ds(s, 'setItem', { key: 'o2', value: 'alice no more' }, { token: alice })).status, 403);
    });
    test('with newOwner, owner filters the current owner; by id and items', async () => {
      const { id } = (await ds(s, 'getItem', { key: 'o1' }, { token: admin })).body;
      const mismatch = await ds(s, 'setOwner', { id, newOwner: 'alice', owner: 'alice' }, { token: admin });
      assert.equal(mismatch.status, 404, 'o1 belongs to bob');
      const match = await ds(s, 'setOwner', { id, newOwner: 'alice', owner: 'bob' }, { token: admin });
      assert.equal(match.status, 200);
      assert.equal(match.body.success[0][0], id);
      const items = await ds(
        s,
        'setOwner',
        { items: [{ key: 'o1' }, { key: 'o2' }], newOwner: aliceId },
        { token: admin },
      );
      assert.equal(items.body.result, 2);
      assert.equal((await ds(s, 'getOwner', { key: 'o2' }, { token: bob })).body.owner, 'alice');
    });
    test('unknown new owner 422, missing owner 422, unknown item 404; nothing changed', async () => {
      const unknown = await ds(s, 'setOwner', { key: 'o1', newOwner: 'ghost' }, { token: admin });
      assert.equal(unknown.status, 422);
      assert.deepEqual(unknown.body.invalid, [['newOwner', 'unknown_user']]);
      assert.equal(unknown.body.result, 0);
      const missing = await ds(s, 'setOwner', { key: 'o1' }, { token: admin });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body.invalid, [['newOwner', 'required']]);
      const gone = await ds(s, 'setOwner', { key: ['o1', 'nothing'], newOwner: 'bob' }, { token: admin });
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body.invalid, [['key.1', 'not found']]);
      assert.equal((await ds(s, 'getOwner', { key: 'o1' }, { token: bob })).body.owner, 'alice', 'all or nothing');
    });
  });

  describe('permission entries', () => {
    test('getPermissions and setPermissions are for administrators', async () => {
      assert.equal((await ds(s, 'getPermissions', {}, { token: alice })).status, 403);
      assert.equal((await ds(s, 'setPermissions', CALLS[9]![1], { token: alice })).status, 403);
      const res = await ds(s, 'getPermissions', {}, { token: admin });
      assert.equal(res.status, 200);
      const map = Object.fromEntries(
        res.body.permissions.map((p: { permission: string; groups: string[] }) => [p.permission, p.groups]),
      );
      assert.deepEqual(map, {
        getItem: ['sys:authenticated', 'admins'],
        list: ['sys:authenticated', 'admins'],
        keys: ['sys:authenticated', 'admins'],
        getOwner: ['sys:authenticated', 'admins'],
        newItem: ['sys:authenticated'],
        setItem: ['sys:owner', 'admins'],
        removeItem: ['sys:owner', 'admins'],
        setOwner: ['admins'],
        getPermissions: ['admins'],
        setPermissions: ['admins'],
        allowed: ['sys:everyone'],
        ping: ['sys:everyone'],
      });
    });
    test('add, revoke, replace; an unknown permission changes nothing (422)', async () => {
      const add = await ds(
        s,
        'setPermissions',
        { permissions: { permission: 'setOwner', group: 'editors' } },
        { token: admin, store: 'closed' },
      );
      assert.equal(add.status, 200);
      const entry = (res: { body: { permissions: Array<{ permission: string; groups: string[] }> } }, name: string) =>
        res.body.permissions.find((p) => p.permission === name)?.groups;
      assert.deepEqual(entry(add, 'setOwner'), ['admins', 'editors']);
      const revoke = await ds(
        s,
        'setPermissions',
        { permissions: [{ permission: 'setOwner', groups: ['editors'], action: 'revoke' }] },
        { token: admin, store: 'closed' },
      );
      assert.deepEqual(entry(revoke, 'setOwner'), ['admins']);
      const bad = await ds(
        s,
        'setPermissions',
        {
          permissions: [
            { permission: 'newItem', groups: ['x'], action: 'replace' },
            { permission: 'fly', groups: ['x'] },
          ],
        },
        { token: admin, store: 'closed' },
      );
      assert.equal(bad.status, 422);
      assert.equal(bad.body.code, 'unknown_permission');
      const now = await ds(s, 'getPermissions', {}, { token: admin, store: 'closed' });
      assert.deepEqual(entry(now, 'newItem'), ['sys:authenticated']);
      const empty = await ds(s, 'setPermissions', { permissions: [] }, { token: admin, store: 'closed' });
      assert.equal(empty.status, 422);
    });
    test('newItem switched off (sys:noone): 403 for everybody, anonymous included', async () => {
      await replace('newItem', ['sys:noone'], 'closed');
      const signed = await ds(s, 'newItem', { key: 'k', value: 1 }, { token: alice, store: 'closed' });
      assert.equal(signed.status, 403);
      assert.equal((await ds(s, 'newItem', { key: 'k', value: 1 }, { store: 'closed' })).status, 403);
      assert.equal((await ds(s, 'setItem', { key: 'k', value: 1 }, { token: alice, store: 'closed' })).status, 403);
      assert.equal((await ds(s, 'newItem', { key: 'k', value: 1 }, { token: admin, store: 'closed' })).status, 403);
    });
    test('a group grant: members of editors may remove any item', async () => {
      const editor = await s.createUser('eddie', { groups: ['editors'] });
      await replace('removeItem', ['sys:owner', 'editors'], 'public');
      await ds(s, 'newItem', { key: 'e1', value: 1 }, { token: alice, store: 'public' });
      assert.equal((await ds(s, 'removeItem', { key: 'e1' }, { token: editor, store: 'public' })).body.result, 1);
    });
    test('allowed: owner-dependent permissions count as held by signed-in users', async () => {
      const res = await ds(
        s,
        'allowed',
        { permission: ['getItem', 'setItem', 'setOwner', 'unknownPerm'] },
        { token: alice },
      );
      assert.deepEqual(res.body, { result: false, getItem: true, setItem: true, setOwner: false, unknownPerm: false });
      const one = await ds(s, 'allowed', { permission: 'newItem' }, { token: alice });
      assert.deepEqual(one.body, { result: true, newItem: true });
      assert.equal((await ds(s, 'allowed', {}, { token: alice })).status, 422);
    });
  });

  describe('reading only own items (getItem, list, keys granted to sys:owner)', () => {
    before(async () => {
      for (const p of ['getItem', 'list', 'keys', 'getOwner']) await replace(p, ['sys:owner', 'admins'], 'closed');
      await replace('newItem', ['sys:authenticated'], 'closed');
      await ds(
        s,
        'newItem',
        {
          items: [
            { key: 'ca', value: 'alice' },
            { key: 'ca2', value: 'alice' },
          ],
        },
        { token: alice, store: 'closed' },
      );
      await ds(s, 'newItem', { key: 'cb', value: 'bob' }, { token: bob, store: 'closed' });
    });
    test("another user's item answers 404, as if it did not exist", async () => {
      const res = await ds(s, 'getItem', { key: 'ca' }, { token: bob, store: 'closed' });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'item_not_found');
      assert.equal((await ds(s, 'getOwner', { key: 'ca' }, { token: bob, store: 'closed' })).status, 404);
      assert.deepEqual(
        (await ds(s, 'getItem', { key: ['ca', 'cb'] }, { token: bob, store: 'closed' })).body.items.map(
          (i: { key: string }) => i.key,
        ),
        ['cb'],
      );
      assert.equal((await ds(s, 'getItem', { key: 'ca' }, { token: alice, store: 'closed' })).status, 200);
      assert.equal((await ds(s, 'getItem', { key: 'ca' }, { token: admin, store: 'closed' })).status, 200);
    });
    test('writes to an unreadable item answer like a missing one', async () => {
      const set = await ds(
        s,
        'setItem',
        { id: (await ds(s, 'getItem', { key: 'ca' }, { token: alice, store: 'closed' })).body.id, value: 'x' },
        { token: bob, store: 'closed' },
      );
      assert.equal(set.status, 404);
      assert.deepEqual((await ds(s, 'removeItem', { key: 'ca' }, { token: bob, store: 'closed' })).body, {
        result: 0,
        success: [],
      });
      assert.equal((await ds(s, 'getItem', { key: 'ca' }, { token: alice, store: 'closed' })).body.value, 'alice');
    });
    test('list and keys show the caller its own items only', async () => {
      const list = await ds(s, 'list', {}, { token: bob, store: 'closed' });
      assert.deepEqual(
        list.body.items.map((i: { key: string }) => i.key),
        ['cb'],
      );
      assert.equal(list.body.total, 1);
      assert.deepEqual((await ds(s, 'keys', {}, { token: alice, store: 'closed' })).body.keys, ['ca', 'ca2']);
      assert.equal((await ds(s, 'keys', { owner: 'alice' }, { token: bob, store: 'closed' })).body.total, 0);
      assert.equal((await ds(s, 'keys', {}, { token: admin, store: 'closed' })).body.total, 3);
    });
  });

  describe('cookie authentication', () => {
    let cookie: string;
    before(async () => {
      const res = await s.users('signin', { identity: 'alice', password: PASSWORD });
      cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      assert.match(cookie, /^auth=/);
    });
    test('a cross-site write with the cookie is refused; a same-origin one works', async () => {
      const cross = await ds(
        s,
        'newItem',
        { key: 'csrf', value: 1 },
        { headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } },
      );
      assert.equal(cross.status, 403);
      assert.equal(cross.body.code, 'cross_site_request');
      assert.equal((await ds(s, 'getItem', { key: 'csrf' }, { token: alice })).status, 404);
      const same = await ds(
        s,
        'newItem',
        { key: 'csrf', value: 1 },
        { headers: { cookie, 'sec-fetch-site': 'same-origin' } },
      );
      assert.equal(same.status, 200);
    });
    test('reads with the cookie work from anywhere', async () => {
      const res = await ds(s, 'getItem', { key: 'csrf' }, { headers: { cookie, 'sec-fetch-site': 'cross-site' } });
      assert.equal(res.status, 200);
    });
  });
});
