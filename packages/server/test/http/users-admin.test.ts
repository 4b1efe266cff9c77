import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer, PASSWORD } from '../helpers/test-server.js';
import { ANONYMOUS_CALLER, programCaller } from '../../src/users/index.js';
import { isRoostError } from '../../src/core/errors.js';

const ADMIN_OPS: Array<[op: string, body: Record<string, unknown>]> = [
  ['review', { identity: 'someone', action: 'accept' }],
  ['getUser', { identity: 'someone' }],
  ['setUser', { identity: 'someone', values: { realname: 'x' } }],
  ['removeUser', { identity: 'someone' }],
  ['list', {}],
  ['identities', {}],
  ['getPermissions', {}],
  ['setPermissions', { permissions: [{ permission: 'signupDirect', groups: ['sys:everyone'], action: 'replace' }] }],
];

describe('users: administrator functions', () => {
  let admin: string;
  const s = useServer();
  before(async () => {
    admin = await s.adminToken();
  });

  describe('every admin operation refuses anonymous (401) and non-admin (403) callers', () => {
    let plain: string;
    before(async () => {
      plain = await s.createUser('plainuser', { groups: ['editors'] });
      await s.createUser('someone');
    });
    for (const [op, body] of ADMIN_OPS) {
      test(op, async () => {
        const anon = await s.users(op, body);
        assert.equal(anon.status, 401, `anonymous ${op}`);
        assert.equal(anon.body.result, false);
        assert.equal(anon.body.code, 'not_signed_in');
        const anonGet = await s.request(`/users/api/${op}`);
        assert.equal(anonGet.status, 401, `anonymous GET ${op}`);
        const user = await s.users(op, body, { token: plain });
        assert.equal(user.status, 403, `non-admin ${op}`);
        assert.equal(user.body.result, false);
        assert.equal(user.body.code, 'not_allowed');
        assert.equal(typeof user.body.message, 'string');
      });
    }
    test('createUser, behind /admin/users/new and the CLI, refuses a caller that does not administer', async () => {
      const account = { name: 'sneaky', password: PASSWORD, groups: ['admins'] };
      const user = s.roost.users.callerFor((await s.roost.users.findUser('plainuser'))!);
      const refused = (code: string) => (err: unknown) => isRoostError(err) && err.code === code;
      await assert.rejects(s.roost.users.createUser(user, account), refused('not_allowed'));
      await assert.rejects(s.roost.users.createUser(ANONYMOUS_CALLER, account), refused('not_signed_in'));
      assert.equal(await s.roost.users.findUser('sneaky'), null);
      // Over HTTP the account stays unknown too: nothing was made.
      const res = await s.users('getUser', { identity: 'sneaky' }, { token: admin });
      assert.equal(res.body.code, 'unknown_user');
    });
    test('the refused calls changed nothing', async () => {
      const res = await s.users('getUser', { identity: 'someone' }, { token: admin });
      assert.equal(res.body.realname, '');
      assert.equal(res.body.active, true);
      const perms = await s.users('getPermissions', {}, { token: admin });
      const direct = perms.body.permissions.find((p: { permission: string }) => p.permission === 'signupDirect');
      assert.deepEqual(direct.groups, ['sys:noone']);
    });
  });

  describe('getUser', () => {
    let id: string;
    before(async () => {
      const token = await s.createUser('getme', { email: 'getme@example.com', groups: ['g1'] });
      id = (await s.users('identity', {}, { token })).body.id;
    });

    test('by name, email and id: the same profile', async () => {
      const byName = await s.users('getUser', { identity: 'getme' }, { token: admin });
      assert.equal(byName.status, 200);
      assert.equal(byName.body.name, 'getme');
      assert.equal(byName.body.email, 'getme@example.com');
      assert.equal(byName.body.id, id);
      assert.equal(byName.body.reference, id);
      assert.equal(byName.body.active, true);
      assert.equal(byName.body.pending, false);
      assert.deepEqual(byName.body.groups, ['g1']);
      assert.match(byName.body.activity, /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d$/);
      assert.equal(byName.body.passwordHash, undefined);
      const byEmail = await s.users('getUser', { identity: 'getme@example.com' }, { token: admin });
      const byId = await s.users('getUser', { identity: id }, { token: admin });
      assert.deepEqual(byEmail.body, byName.body);
      assert.deepEqual(byId.body, byName.body);
    });

    test('over GET with a query', async () => {
      const res = await s.request('/users/api/getUser?identity=getme', undefined, { token: admin });
      assert.equal(res.status, 200);
      assert.equal(res.body.id, id);
    });

    test('unknown user → 404 with a JSON failure body', async () => {
      const res = await s.users('getUser', { identity: 'no-such-user' }, { token: admin });
      assert.equal(res.status, 404);
      assert.equal(res.body.result, false);
      assert.equal(res.body.code, 'unknown_user');
    });

    test('missing identity → [identity, required]', async () => {
      const res = await s.users('getUser', {}, { token: admin });
      assert.equal(res.status, 200);
      assert.equal(res.body.result, false);
      assert.deepEqual(res.body.invalid, [['identity', 'required']]);
    });
  });

  describe('setUser', () => {
    const get = async (identity: string) => (await s.users('getUser', { identity }, { token: admin })).body;

    test('realname and groups', async () => {
      await s.createUser('set1');
      const res = await s.users(
        'setUser',
        { identity: 'set1', values: { realname: 'Set One', groups: ['a', 'b'] } },
        { token: admin },
      );
      assert.deepEqual(res.body, { result: true });
      const u = await get('set1');
      assert.equal(u.realname, 'Set One');
      assert.deepEqual(u.groups, ['a', 'b']);
      await s.users('setUser', { identity: 'set1', values: { groups: 'c' } }, { token: admin });
      assert.deepEqual((await get('set1')).groups, ['c']);
    });

    test('groups: admins makes an administrator', async () => {
      const token = await s.createUser('set2');
      assert.equal((await s.users('list', {}, { token })).status, 403);
      await s.users('setUser', { identity: 'set2', values: { groups: ['admins'] } }, { token: admin });
      assert.equal((await s.users('list', {}, { token })).status, 200);
    });

    test('email, and an email another account holds → [email, exists]', async () => {
      await s.createUser('set3');
      await s.createUser('set4');
      const ok = await s.users(
        'setUser',
        { identity: 'set3', values: { email: 'set3-new@example.com' } },
        { token: admin },
      );
      assert.deepEqual(ok.body, { result: true });
      assert.equal((await get('set3')).email, 'set3-new@example.com');
      const taken = await s.users(
        'setUser',
        { identity: 'set4', values: { email: 'set3-new@example.com' } },
        { token: admin },
      );
      assert.equal(taken.status, 200);
      assert.equal(taken.body.result, false);
      assert.deepEqual(taken.body.invalid, [['email', 'exists']]);
      assert.equal((await get('set4')).email, 'set4@example.com');
      const bad = await s.users('setUser', { identity: 'set4', values: { email: 'not-an-email' } }, { token: admin });
      assert.deepEqual(bad.body.invalid, [['values.email', 'invalid_email']]);
    });

    test('password: the new one works, the old one not, sessions revoked', async () => {
      const token = await s.createUser('set5');
      const res = await s.users(
        'setUser',
        { identity: 'set5', values: { password: 'admin-set-password' } },
        { token: admin },
      );
      assert.deepEqual(res.body, { result: true });
      assert.equal((await s.users('profile', {}, { token })).status, 401);
      assert.equal((await s.users('token', { identity: 'set5', password: PASSWORD })).status, 401);
      assert.equal((await s.users('token', { identity: 'set5', password: 'admin-set-password' })).status, 200);
    });

    test('active false disables and revokes sessions; active true reactivates', async () => {
      const token = await s.createUser('set6');
      const off = await s.users('setUser', { identity: 'set6', values: { active: false } }, { token: admin });
      assert.deepEqual(off.body, { result: true });
      let u = await get('set6');
      assert.equal(u.active, false);
      assert.equal(u.state, 'disabled');
      assert.equal((await s.users('profile', {}, { token })).status, 401);
      assert.equal((await s.users('token', { identity: 'set6', password: PASSWORD })).status, 401);
      const on = await s.users('setUser', { identity: 'set6', values: { active: 'true' } }, { token: admin });
      assert.deepEqual(on.body, { result: true });
      u = await get('set6');
      assert.equal(u.active, true);
      assert.equal(u.state, 'active');
      assert.equal((await s.users('token', { identity: 'set6', password: PASSWORD })).status, 200);
      assert.equal((await s.users('profile', {}, { token })).status, 401, 'the revoked token stays revoked');
    });

    test('unknown user → 404; unknown value field → invalid; too short password → too short', async () => {
      const unknown = await s.users(
        'setUser',
        { identity: 'no-such-user', values: { realname: 'x' } },
        { token: admin },
      );
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'unknown_user');
      await s.createUser('set7');
      const extra = await s.users('setUser', { identity: 'set7', values: { passwordHash: 'x' } }, { token: admin });
      assert.equal(extra.body.result, false);
      const short = await s.users('setUser', { identity: 'set7', values: { password: 'abc' } }, { token: admin });
      assert.deepEqual(short.body.invalid, [['values.password', 'too short']]);
      const missing = await s.users('setUser', { values: { realname: 'x' } }, { token: admin });
      assert.deepEqual(missing.body.invalid, [['identity', 'required']]);
    });
  });

  describe('removeUser', () => {
    test('removes the account, its sessions; the name is free again', async () => {
      const token = await s.createUser('rem1');
      const res = await s.users('removeUser', { identity: 'rem1' }, { token: admin });
      assert.deepEqual(res.body, { result: true });
      assert.equal((await s.users('getUser', { identity: 'rem1' }, { token: admin })).status, 404);
      assert.equal((await s.users('profile', {}, { token })).status, 401);
      await s.createUser('rem1');
      assert.equal((await s.users('getUser', { identity: 'rem1' }, { token: admin })).status, 200);
    });

    test('by email; unknown → 404', async () => {
      await s.createUser('rem2', { email: 'rem2@example.net' });
      assert.deepEqual((await s.users('removeUser', { identity: 'rem2@example.net' }, { token: admin })).body, {
        result: true,
      });
      const again = await s.users('removeUser', { identity: 'rem2@example.net' }, { token: admin });
      assert.equal(again.status, 404);
      assert.equal(again.body.result, false);
    });
  });

  describe('getPermissions and setPermissions', () => {
    const groupsOf = async (permission: string) => {
      const res = await s.users('getPermissions', {}, { token: admin });
      return res.body.permissions.find((p: { permission: string }) => p.permission === permission)?.groups as
        | string[]
        | undefined;
    };

    test('getPermissions lists every operation with its groups', async () => {
      const res = await s.users('getPermissions', {}, { token: admin });
      assert.equal(res.status, 200);
      assert.equal(res.body.result, true);
      const names = res.body.permissions.map((p: { permission: string }) => p.permission);
      for (const op of [
        'signupDirect',
        'signupOptin',
        'signupReview',
        'signupSendpw',
        'signupUid',
        'updateEmail',
        'list',
        'setUser',
      ])
        assert.ok(names.includes(op), op);
      assert.deepEqual(await groupsOf('list'), ['admins']);
      const get = await s.request('/users/api/getPermissions', undefined, { token: admin });
      assert.deepEqual(get.body, res.body);
    });

    test('add (default action), replace, revoke', async () => {
      let res = await s.users(
        'setPermissions',
        { permissions: [{ permission: 'signupReview', groups: ['g1'] }] },
        { token: admin },
      );
      assert.equal(res.body.result, true);
      assert.deepEqual(await groupsOf('signupReview'), ['sys:noone', 'g1']);
      res = await s.users(
        'setPermissions',
        { permissions: [{ permission: 'signupReview', groups: ['g2', 'g3'], action: 'add' }] },
        { token: admin },
      );
      assert.deepEqual(await groupsOf('signupReview'), ['sys:noone', 'g1', 'g2', 'g3']);
      res = await s.users(
        'setPermissions',
        { permissions: [{ permission: 'signupReview', groups: ['g1', 'g3'], action: 'revoke' }] },
        { token: admin },
      );
      assert.deepEqual(await groupsOf('signupReview'), ['sys:noone', 'g2']);
      res = await s.users(
        'setPermissions',
        { permissions: [{ permission: 'signupReview', groups: ['sys:everyone'], action: 'replace' }] },
        { token: admin },
      );
      assert.equal(res.body.result, true);
      assert.deepEqual(await groupsOf('signupReview'), ['sys:everyone']);
      assert.equal((await s.users('allowed', { permission: 'signupReview' })).body.result, true);
      await s.users(
        'setPermissions',
        { permissions: [{ permission: 'signupReview', groups: ['sys:noone'], action: 'replace' }] },
        { token: admin },
      );
      assert.equal((await s.users('allowed', { permission: 'signupReview' })).body.result, false);
    });

    test('the `group` alias and one object instead of a list', async () => {
      const res = await s.users(
        'setPermissions',
        { permissions: { permission: 'signupUid', group: 'sys:everyone', action: 'replace' } },
        { token: admin },
      );
      assert.equal(res.body.result, true);
      assert.deepEqual(await groupsOf('signupUid'), ['sys:everyone']);
      await s.users(
        'setPermissions',
        { permissions: { permission: 'signupUid', group: ['sys:everyone'], action: 'revoke' } },
        { token: admin },
      );
      assert.deepEqual(await groupsOf('signupUid'), []);
    });

    test('a granted permission takes effect: signupDirect works after setPermissions', async () => {
      const before = await s.users('signupDirect', { name: 'perm1', email: 'perm1@example.com', password: PASSWORD });
      assert.equal(before.status, 403, 'a switched-off sign-up policy');
      await s.users(
        'setPermissions',
        { permissions: [{ permission: 'signupDirect', groups: ['sys:everyone'], action: 'replace' }] },
        { token: admin },
      );
      const after = await s.users('signupDirect', { name: 'perm1', email: 'perm1@example.com', password: PASSWORD });
      assert.deepEqual(after.body, { result: true });
      await s.users(
        'setPermissions',
        { permissions: [{ permission: 'signupDirect', groups: ['sys:noone'], action: 'replace' }] },
        { token: admin },
      );
    });

    test('unknown permission → result false unknown_permission, nothing changed', async () => {
      const res = await s.users(
        'setPermissions',
        {
          permissions: [
            { permission: 'signupReview', groups: ['x'] },
            { permission: 'no-such-op', groups: ['x'] },
          ],
        },
        { token: admin },
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.result, false);
      assert.equal(res.body.code, 'unknown_permission');
      assert.deepEqual(res.body.invalid, [['permission', 'unknown_permission']]);
      assert.deepEqual(await groupsOf('signupReview'), ['sys:noone']);
    });

    test('an unknown action or no groups → result false', async () => {
      const bad = await s.users(
        'setPermissions',
        { permissions: [{ permission: 'signupReview', groups: ['x'], action: 'delete' }] },
        { token: admin },
      );
      assert.equal(bad.body.result, false);
      const none = await s.users('setPermissions', { permissions: [{ permission: 'signupReview' }] }, { token: admin });
      assert.equal(none.body.result, false);
      const missing = await s.users('setPermissions', {}, { token: admin });
      assert.equal(missing.body.result, false);
      assert.deepEqual(missing.body.invalid, [['permissions', 'required']]);
      assert.deepEqual(await groupsOf('signupReview'), ['sys:noone']);
    });
  });
});

describe('users: list and identities', () => {
  let admin: string;
  let t = Date.UTC(2026, 0, 1);
  const names = (res: { body: { users: Array<{ name: string }> } }) => res.body.users.map((u) => u.name);

  const s = useServer({}, { clock: { now: () => t } });
  before(async () => {
    admin = await s.adminToken(); // admin: created first
    const add = async (
      name: string,
      email: string,
      state: 'active' | 'disabled' | 'pending',
      groups: string[] = [],
      realname = '',
    ) => {
      t += 60_000;
      await s.roost.users.createUser(programCaller('test'), {
        name,
        email,
        password: PASSWORD,
        realname,
        data: '',
        notify: false,
        groups,
        state,
        pending: state === 'pending' ? 'review' : null,
      });
    };
    // Created in this order; names and emails sort differently.
    await add('delta', 'a-delta@zeta.org', 'active', ['team']);
    await add('alpha', 'd-alpha@example.com', 'active', [], 'Alice Smith');
    await add('charlie', 'c-charlie@example.com', 'disabled', ['team', 'x']);
    await add('bravo', 'b-bravo@zeta.org', 'pending');
    await add('echo', 'e-echo@example.com', 'active', ['teams']);
    for (let i = 0; i < 110; i++) await add(`zz${String(i).padStart(3, '0')}`, `zz${i}@bulk.test`, 'active');
  });

  const list = (body: Record<string, unknown>, op = 'list') => s.users(op, body, { token: admin });

  test('default: sorted by name ascending, start 1, page size 20, total of all', async () => {
    const res = await list({});
    assert.equal(res.status, 200);
    assert.equal(res.body.start, 1);
    assert.equal(res.body.size, 20);
    assert.equal(res.body.total, 116);
    assert.equal(res.body.users.length, 20);
    assert.deepEqual(names(res).slice(0, 6), ['admin', 'alpha', 'bravo', 'charlie', 'delta', 'echo']);
    const u = res.body.users[1];
    assert.equal(u.email, 'd-alpha@example.com');
    assert.equal(u.realname, 'Alice Smith');
    assert.equal(u.active, true);
    assert.equal(typeof u.id, 'string');
    assert.equal(u.passwordHash, undefined);
  });

  test('search by active and pending', async () => {
    const inactive = await list({ active: false });
    assert.deepEqual(names(inactive), ['charlie']);
    assert.equal(inactive.body.total, 1);
    const pending = await list({ pending: true });
    assert.deepEqual(names(pending), ['bravo']);
    assert.equal(pending.body.users[0].pending, true);
    assert.equal(pending.body.users[0].active, false);
    const active = await list({ active: true, size: 100 });
    assert.equal(active.body.total, 114);
    assert.ok(!names(active).includes('charlie'));
    assert.ok(!names(active).includes('bravo'));
    const notPending = await list({ pending: false, size: 5 });
    assert.equal(notPending.body.total, 115);
  });

  test('search by name and email substring (case-insensitive) and search', async () => {
    assert.deepEqual(names(await list({ name: 'ha' })), ['alpha', 'charlie']);
    assert.deepEqual(names(await list({ name: 'LPH' })), ['alpha']);
    assert.deepEqual(names(await list({ email: 'zeta.org' })), ['bravo', 'delta']);
    assert.deepEqual(names(await list({ search: 'smith' })), ['alpha'], 'search covers the realname');
    assert.deepEqual(names(await list({ search: 'zeta' })), ['bravo', 'delta'], 'search covers the email');
    assert.deepEqual(names(await list({ search: 'echo' })), ['echo']);
    assert.equal((await list({ name: 'zz0' })).body.total, 100);
    assert.deepEqual(names(await list({ name: 'nobody' })), []);
  });

  test('LIKE wildcards in a search are literal', async () => {
    assert.deepEqual(names(await list({ name: '%' })), []);
    assert.deepEqual(names(await list({ name: '_' })), []);
    assert.deepEqual(names(await list({ search: 'a%a' })), []);
  });

  test('search by group: exact group, not a prefix', async () => {
    assert.deepEqual(names(await list({ group: 'team' })), ['charlie', 'delta']);
    assert.deepEqual(names(await list({ group: 'teams' })), ['echo']);
    assert.deepEqual(names(await list({ group: 'admins' })), ['admin']);
    assert.deepEqual(names(await list({ group: 'tea' })), []);
  });

  test('paging: 1-based start, size, total', async () => {
    const page = await list({ start: 2, size: 3 });
    assert.deepEqual(names(page), ['alpha', 'bravo', 'charlie']);
    assert.equal(page.body.start, 2);
    assert.equal(page.body.size, 3);
    assert.equal(page.body.total, 116);
    const next = await list({ start: 5, size: 3 });
    assert.deepEqual(names(next), ['delta', 'echo', 'zz000']);
  });

  test('paging: size 0 gives no users but the total', async () => {
    const res = await list({ size: 0 });
    assert.deepEqual(res.body.users, []);
    assert.equal(res.body.size, 0);
    assert.equal(res.body.total, 116);
  });

  test('paging: size above the maximum is capped at 100', async () => {
    const res = await list({ size: 1000 });
    assert.equal(res.body.size, 100);
    assert.equal(res.body.users.length, 100);
    assert.equal(res.body.total, 116);
  });

  test('paging: start past the end gives an empty page', async () => {
    const res = await list({ start: 500, size: 10 });
    assert.deepEqual(res.body.users, []);
    assert.equal(res.body.start, 500);
    assert.equal(res.body.total, 116);
    const last = await list({ start: 115, size: 10 });
    assert.deepEqual(names(last), ['zz108', 'zz109']);
  });

  test('paging: invalid start or size → result false', async () => {
    for (const body of [{ start: 0 }, { size: -1 }, { start: 'abc' }, { sort: 'password_hash' }, { order: 'desc' }]) {
      const res = await list(body);
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(res.body.result, false, JSON.stringify(body));
      assert.equal(res.body.invalid.length, 1, JSON.stringify(body));
    }
  });

  test('sort by name, email, created; order < and >', async () => {
    const five = { name: '', search: '', size: 6 };
    assert.deepEqual(names(await list({ ...five, sort: 'name', order: '>' })).slice(0, 2), ['zz109', 'zz108']);
    const byEmail = await list({ search: 'e', sort: 'email', order: '<', size: 10, active: true });
    assert.deepEqual(byEmail.body.users.map((u: { email: string }) => u.email).slice(0, 3), [
      'a-delta@zeta.org',
      'admin@example.com',
      'd-alpha@example.com',
    ]);
    const byEmailDesc = await list({ email: 'example.com', sort: 'email', order: '>' });
    assert.deepEqual(names(byEmailDesc), ['echo', 'alpha', 'charlie', 'admin']);
    const created = await list({ sort: 'created', order: '<', size: 6 });
    assert.deepEqual(names(created), ['admin', 'delta', 'alpha', 'charlie', 'bravo', 'echo']);
    const createdDesc = await list({ sort: 'created', order: '>', size: 2 });
    assert.deepEqual(names(createdDesc), ['zz109', 'zz108']);
  });

  test('list over GET with query text', async () => {
    const res = await s.request('/users/api/list?active=false&size=5&start=1', undefined, { token: admin });
    assert.deepEqual(names(res), ['charlie']);
    assert.equal(res.body.size, 5);
  });

  test('identities: identities only, same search and paging', async () => {
    const res = await list({ group: 'team' }, 'identities');
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 2);
    assert.deepEqual(
      res.body.users.map((u: Record<string, unknown>) => Object.keys(u).sort()),
      [
        ['email', 'id', 'name', 'realname', 'reference'],
        ['email', 'id', 'name', 'realname', 'reference'],
      ],
    );
    assert.deepEqual(names(res), ['charlie', 'delta']);
    const paged = await list({ start: 3, size: 2, order: '>', sort: 'name' }, 'identities');
    assert.deepEqual(names(paged), ['zz107', 'zz106']);
    assert.equal(paged.body.total, 116);
  });

  test('null search fields count as absent (Python connector)', async () => {
    const res = await list({
      active: null,
      pending: null,
      start: null,
      size: null,
      sort: null,
      order: null,
      name: null,
    });
    assert.equal(res.body.start, 1);
    assert.equal(res.body.size, 20);
    assert.equal(res.body.total, 116);
  });
});
