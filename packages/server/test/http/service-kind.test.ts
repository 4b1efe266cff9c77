import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, getPage, textOf } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';
import { counterStore } from '../fixtures/counter-store/index.js';

/**
 * Issue 38, item 1: a service kind from its descriptor alone. The counter store of
 * test/fixtures/counter-store/ is handed to Roost as one more kind (`RoostOverrides.kinds`);
 * its table is migrated, its operation answers over HTTP with Roost's failure bodies, its
 * permissions are checked and listed among the services', its page is in the backend's header.
 * The recipe is docs/architecture.md, "Adding a service".
 */
describe('a service kind from its descriptor alone (the counter store)', () => {
  const s = useServer({}, { kinds: [counterStore] });

  test('its operation counts over HTTP for a signed-in caller and refuses an anonymous one', async () => {
    const anonymous = await s.request('/counter/api/increment', {});
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'not_signed_in');
    assert.equal(anonymous.body.result, false);
    const token = await s.createUser('counting');
    assert.deepEqual((await s.request('/counter/api/increment', {}, { token })).body, { result: 1 });
    assert.deepEqual((await s.request('/counter/api/increment', {}, { token })).body, { result: 2 });
  });

  test('its permissions are listed and changed on the permission pages; its page is in the header', async () => {
    await s.adminToken();
    const cookie = await authCookie(s, 'admin');
    const services = await getPage(s, '/admin/permissions', cookie);
    assert.equal(services.status, 200);
    assert.match(textOf(services.html), /counter/);
    const entries = await getPage(s, '/admin/permissions/counter', cookie);
    assert.equal(entries.status, 200);
    assert.match(entries.html, /increment/);
    const page = await getPage(s, '/admin/counter', cookie);
    assert.equal(page.status, 200);
    assert.match(page.html, /<strong class="counter">\d+<\/strong>/);
    assert.match(page.html, /href="\/admin\/counter"/);
    const ready = await s.request('/ready', undefined, { method: 'GET' });
    assert.equal(ready.status, 200);
  });

  test("an administrator's change of its permissions is what the operation checks next", async () => {
    const admin = await s.roost.users.authenticate(await s.adminToken());
    assert.ok(admin);
    const target = s.roost.kinds.flatMap((kind) => kind.services(s.roost)).find((t) => t.name === 'counter');
    assert.ok(target);
    await target.change(admin, [{ permission: 'increment', groups: ['admins'], action: 'replace' }]);
    const token = await s.createUser('counting2');
    assert.equal((await s.request('/counter/api/increment', {}, { token })).status, 403);
    assert.equal((await s.request('/counter/api/increment', {}, { token: await s.adminToken() })).status, 200);
  });
});
