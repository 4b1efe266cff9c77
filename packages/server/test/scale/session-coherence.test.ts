import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createRoost, type Roost } from '../../src/roost.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';
import { eventually, onPostgres } from './scale-helpers.js';

/**
 * Two Roost instances on one PostgreSQL database, each keeping sessions in memory for a
 * minute and with a clock that never moves: a cached session can only go because the other
 * instance's change reached this one through LISTEN/NOTIFY (storage/change-feed.ts).
 */
describe('sessions, permissions and settings stay coherent across instances on PostgreSQL', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  const clock = { now: () => 1_800_000_000_000 };
  const slowCache = { users: { sessionCacheSeconds: 60 } };
  let a: TestServer;
  let b: Roost;
  let bUrl: string;
  before(async () => {
    a = await startServer(slowCache, { clock });
    b = await createRoost(a.roost.config, { clock });
    bUrl = await b.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  const call = async (url: string, op: string, token?: string, body: unknown = {}) => {
    const res = await fetch(`${url}/users/api/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const identityStatus = async (url: string, token: string) => (await call(url, 'identity', token)).status;

  test('a token from one instance works on the other', async () => {
    const token = await a.createUser('olga');
    assert.equal(await identityStatus(bUrl, token), 200);
  });

  test('a signout on one instance is seen by the other, though its cache would keep the session a minute', async () => {
    const token = await a.createUser('paula');
    assert.equal(await identityStatus(bUrl, token), 200); // b now keeps the session
    assert.equal(await identityStatus(bUrl, token), 200);
    assert.equal((await call(a.url, 'signout', token)).status, 200);
    await eventually(async () => (await identityStatus(bUrl, token)) === 401, 'b refuses the signed-out token');
  });

  test('a signout on the second instance is seen by the first', async () => {
    const token = await a.createUser('quinn');
    assert.equal(await identityStatus(a.url, token), 200);
    assert.equal((await call(bUrl, 'signout', token)).status, 200);
    await eventually(async () => (await identityStatus(a.url, token)) === 401, 'a refuses the signed-out token');
  });

  test('disabling an account, and a password change, end its other sessions everywhere', async () => {
    const admin = await a.adminToken();
    const disabled = await a.createUser('rita');
    assert.equal(await identityStatus(bUrl, disabled), 200);
    assert.equal(
      (await call(a.url, 'setUser', admin, { identity: 'rita', values: { active: false } })).body.result,
      true,
    );
    await eventually(async () => (await identityStatus(bUrl, disabled)) === 401, 'b refuses the disabled account');

    const first = await a.createUser('sven');
    const second = (await call(a.url, 'token', undefined, { identity: 'sven', password: PASSWORD })).body
      .token as string;
    assert.equal(await identityStatus(bUrl, first), 200);
    assert.equal(
      (await call(a.url, 'updatePassword', second, { password: PASSWORD, newpassword: 'another-good-password' })).body
        .result,
      true,
    );
    await eventually(
      async () => (await identityStatus(bUrl, first)) === 401,
      'b refuses the session the password change revoked',
    );
    assert.equal(await identityStatus(bUrl, second), 200, 'the session that changed the password stays');
  });

  test('a group change shows on the other instance at once', async () => {
    const admin = await a.adminToken();
    const token = await a.createUser('tara');
    assert.deepEqual((await call(bUrl, 'profile', token)).body.groups, []);
    await call(a.url, 'setUser', admin, { identity: 'tara', values: { groups: ['editors'] } });
    await eventually(
      async () => JSON.stringify((await call(bUrl, 'profile', token)).body.groups) === '["editors"]',
      'b shows the new group',
    );
  });

  test('a permission change on one instance applies on the other', async () => {
    const admin = await a.adminToken();
    assert.equal((await call(bUrl, 'getPermissions', admin)).status, 200); // b now keeps the entries
    await call(a.url, 'setPermissions', admin, {
      permissions: [{ permission: 'signupDirect', groups: ['sys:everyone'], action: 'replace' }],
    });
    await eventually(async () => {
      const res = await call(bUrl, 'signupDirect', undefined, {
        name: 'newcomer',
        email: 'newcomer@example.com',
        password: PASSWORD,
      });
      return res.body.result === true;
    }, 'b lets anyone sign up');
  });

  test("a rename on one instance shows as the items' owner on the other (account events on the feed)", async () => {
    const admin = await a.adminToken();
    const token = await a.createUser('vera');
    const item = (url: string, op: string, body: unknown) =>
      fetch(`${url}/data/api/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': admin },
        body: JSON.stringify(body),
      }).then(async (res) => (await res.json()) as Record<string, unknown>);
    await fetch(`${a.url}/data/api/newItem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': token },
      body: JSON.stringify({ key: 'vera-item', value: 1 }),
    });
    assert.equal((await item(bUrl, 'getItem', { key: 'vera-item' })).owner, 'vera'); // b now keeps the name
    await call(a.url, 'setUser', admin, { identity: 'vera', values: { name: 'vera2' } });
    await eventually(
      async () => (await item(bUrl, 'getItem', { key: 'vera-item' })).owner === 'vera2',
      'b shows the new name',
    );
  });

  test('a runtime setting changed on one instance applies on the other, though its cache kept the old', async () => {
    const before = (await b.settings.current()).mailFrom; // b now keeps the settings (its clock never moves)
    await a.roost.settings.change({ mailFrom: 'Coherent <coherent@example.com>' }, null);
    await eventually(
      async () => (await b.settings.current()).mailFrom === 'Coherent <coherent@example.com>',
      'b uses the new sender',
    );
    await a.roost.settings.change({ mailFrom: before }, null);
    await eventually(async () => (await b.settings.current()).mailFrom === before, 'b follows the change back');
  });

  test('after the listening connections were cut, the feed reconnects and changes flow again', async () => {
    const admin = new pg.Client({ connectionString: a.roost.config.databaseUrl });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike ' +
          "'listen roost_changes%' and pid <> pg_backend_pid()",
      );
      assert.equal(rowCount, 2, 'both instances listen');
    } finally {
      await admin.end();
    }
    const token = await a.createUser('ursula');
    assert.equal(await identityStatus(bUrl, token), 200);
    assert.equal((await call(a.url, 'signout', token)).status, 200);
    await eventually(
      async () => (await identityStatus(bUrl, token)) === 401,
      'b refuses the signed-out token after the reconnect',
    );
  });
});
