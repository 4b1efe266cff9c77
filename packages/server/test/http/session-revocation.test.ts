import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/test-server.js';
import { busyCallers, type BusyRequest } from '../helpers/busy-callers.js';

/**
 * A revoking or demoting call must take effect for every request that arrives after it has
 * answered, even while the token is in heavy use: a lookup that ran during the revoking write
 * must not put the old session back into the cache (users/session-cache.ts). Sixteen
 * connections keep writing (or calling an administrator operation) with the token during the
 * call; no request sent after its answer may succeed.
 */
describe('revocation while the token is in use', () => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    // A long cache: a wrongly re-cached session would keep working for the whole test.
    s = await startServer({ users: { sessionCacheSeconds: 30 } });
    admin = await s.adminToken();
  });
  after(() => s.close());

  let n = 0;
  /** Sixteen writers on the data store with `token` while `revoke` runs; the requests sent after its answer. */
  async function writesAround(token: string, revoke: () => Promise<number>): Promise<BusyRequest[]> {
    const prefix = `k${++n}-`;
    for (let i = 0; i < 16; i++)
      assert.equal((await s.request('/data/api/newItem', { key: `${prefix}${i}`, value: 0 }, { token })).status, 200);
    const run = await busyCallers(
      16,
      (worker, round) => s.request('/data/api/setItem', { key: `${prefix}${worker}`, value: round }, { token }),
      revoke,
    );
    assert.ok(
      run.before.some((r) => r.status === 200),
      'the writers were busy before the revoking call',
    );
    return run.after;
  }

  const accepted = (requests: BusyRequest[]) => requests.filter((r) => r.status === 200).length;

  test('signout', async () => {
    const token = await s.createUser('rev-signout');
    const after = await writesAround(token, async () => (await s.users('signout', {}, { token })).status);
    assert.ok(after.length > 0);
    assert.equal(accepted(after), 0);
  });

  test('disable', async () => {
    const token = await s.createUser('rev-disable');
    const after = await writesAround(token, async () => (await s.users('disable', {}, { token })).status);
    assert.equal(accepted(after), 0);
  });

  test('delete', async () => {
    const token = await s.createUser('rev-delete');
    const after = await writesAround(token, async () => (await s.users('delete', {}, { token })).status);
    assert.equal(accepted(after), 0);
  });

  test('a password change ends the other sessions', async () => {
    const token = await s.createUser('rev-password');
    const other = (await s.users('token', { identity: 'rev-password', password: 'a-good-password' })).body
      .token as string;
    const after = await writesAround(
      token,
      async () =>
        (
          await s.users(
            'updatePassword',
            { password: 'a-good-password', newpassword: 'another-good-one' },
            { token: other },
          )
        ).status,
    );
    assert.equal(accepted(after), 0);
  });

  test('removeUser and setUser (disable, new password) by an administrator', async () => {
    for (const [name, body] of [
      ['rev-remove', null],
      ['rev-setuser-off', { active: false }],
      ['rev-setuser-pw', { password: 'set-by-an-admin' }],
    ] as const) {
      const token = await s.createUser(name);
      const after = await writesAround(
        token,
        async () =>
          (body === null
            ? await s.users('removeUser', { identity: name }, { token: admin })
            : await s.users('setUser', { identity: name, values: body }, { token: admin })
          ).status,
      );
      assert.equal(accepted(after), 0, name);
    }
  });

  test('an administrator taken out of admins loses administrator rights at once', async () => {
    const demoted = await s.createUser('rev-admin', { groups: ['admins'] });
    const run = await busyCallers(
      16,
      () => s.users('list', {}, { token: demoted }),
      async () =>
        (await s.users('setUser', { identity: 'rev-admin', values: { groups: [] } }, { token: admin })).status,
    );
    assert.ok(
      run.before.some((r) => r.status === 200),
      'the administrator calls succeeded before',
    );
    assert.ok(run.after.length > 0);
    assert.equal(accepted(run.after), 0);
    assert.ok(run.after.every((r) => r.status === 403));
  });
});
