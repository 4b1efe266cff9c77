import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, getPage, textOf } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';
import { counterStore } from '../fixtures/counter-store/index.js';
import { openStream } from '../helpers/event-stream.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { programCaller } from '../../src/users/index.js';

/**
 * Issue 38, item 1: a service kind from its descriptor alone. The counter store of
 * test/fixtures/counter-store/ is handed to Roost as one more kind (`RoostOverrides.kinds`);
 * its table is migrated, its operation answers over HTTP with Roost's failure bodies, its
 * permissions are checked and listed among the services', its event reaches live streams of
 * its topic and its webhooks, its page is in the backend's header.
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
    const dashboard = await getPage(s, '/admin', cookie);
    assert.match(
      dashboard.html,
      /<a class="tile" href="\/admin\/counter"><span class="figure">\d+<\/span><span>counts?<\/span>/,
    );
    const ready = await s.request('/ready', undefined, { method: 'GET' });
    assert.equal(ready.status, 200);
  });

  test('its event reaches a live stream of its topic and a webhook of its service', async () => {
    const token = await s.createUser('watching');
    const hook = await receiver();
    const stream = await openStream(s.url, { token, topics: ['counter'] });
    try {
      assert.equal(stream.status, 200);
      const admin = programCaller('test').principal;
      const webhook = await s.roost.webhooks.add(admin, {
        url: hook.url,
        service: 'counter',
        kinds: ['counter.incremented'],
      });
      const { result } = (await s.request('/counter/api/increment', {}, { token })).body;
      assert.deepEqual((await stream.next('counter')).data, { event: 'counter.incremented', value: result });
      await s.roost.webhooks.idle();
      assert.equal(hook.received.length, 1);
      assert.equal(hook.received[0]?.headers['x-roost-event'], 'counter.incremented');
      const body = JSON.parse(hook.received[0]?.body ?? '{}');
      assert.deepEqual(body, { event: 'counter.incremented', at: body.at, value: result });
      await s.roost.webhooks.remove(admin, webhook.id);
      // Its kinds are what a webhook of the service may ask for; another family's are refused.
      await assert.rejects(
        s.roost.webhooks.add(admin, { url: hook.url, service: 'counter', kinds: ['item.created'] }),
        { code: 'validation_failure' },
      );
    } finally {
      stream.close();
      await hook.close();
    }
  });

  test('its topic is refused to an anonymous caller and when misspelt, with the failure body', async () => {
    const anonymous = await openStream(s.url, { topics: ['counter'] });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.failure.code, 'not_signed_in');
    const token = await s.createUser('misspelling');
    const wrong = await openStream(s.url, { token, topics: ['counter/x'] });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.failure.code, 'validation_failure');
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
