import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoost, type Roost } from '../../src/roost.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Sessions are kept in memory for `users.sessionCacheSeconds`. Two Roost instances on one
 * database show the bound: a signout on one is seen by the other once that time has passed
 * (and at once in the instance that did it).
 */
describe('the session cache across two instances on one database', () => {
  let now = Date.now();
  const clock = { now: () => now };
  let a: TestServer;
  let b: Roost;
  let bUrl: string;
  before(async () => {
    a = await startServer({ users: { sessionCacheSeconds: 2 } }, { clock });
    b = await createRoost(a.roost.config, { clock });
    bUrl = await b.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  const identityOn = async (url: string, token: string) =>
    (await fetch(`${url}/users/api/identity`, { headers: { 'x-auth-token': token } })).status;

  test('a token from one instance works on the other', async () => {
    const token = await a.createUser('frank');
    assert.equal(await identityOn(bUrl, token), 200);
  });

  test('a signout is seen at once where it happened, and by the other within the cache time', async () => {
    const token = await a.createUser('grace');
    assert.equal(await identityOn(bUrl, token), 200); // b now remembers the session
    const out = await fetch(`${a.url}/users/api/signout`, { method: 'POST', headers: { 'x-auth-token': token } });
    assert.equal(out.status, 200);
    assert.equal(await identityOn(a.url, token), 401);
    now += 2001;
    assert.equal(await identityOn(bUrl, token), 401);
  });

  test('a profile change made on one instance shows on the other after the cache time', async () => {
    const token = await a.createUser('heidi');
    assert.equal(await identityOn(bUrl, token), 200);
    await fetch(`${a.url}/users/api/update`, {
      method: 'POST',
      headers: { 'x-auth-token': token, 'content-type': 'application/json' },
      body: '{"realname":"Heidi H."}',
    });
    now += 2001;
    const res = await fetch(`${bUrl}/users/api/identity`, { headers: { 'x-auth-token': token } });
    assert.equal(((await res.json()) as { realname: string }).realname, 'Heidi H.');
  });

  test('with sessionCacheSeconds 0 the other instance sees a signout at once', async () => {
    const c = await startServer({ users: { sessionCacheSeconds: 0 } });
    const d = await createRoost(c.roost.config);
    const dUrl = await d.listen({ port: 0, host: '127.0.0.1' });
    try {
      const token = await c.createUser('ivan');
      assert.equal(await identityOn(dUrl, token), 200);
      await fetch(`${c.url}/users/api/signout`, { method: 'POST', headers: { 'x-auth-token': token } });
      assert.equal(await identityOn(dUrl, token), 401);
    } finally {
      await d.close();
      await c.close();
    }
  });
});
