import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { receiver } from '../helpers/webhook-receiver.js';
import { authCookie, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { startServer, useServer, type TestServer } from '../helpers/test-server.js';
import { eventually } from '../scale/scale-helpers.js';
import { programCaller } from '../../src/users/index.js';

/** Webhooks are managed by administrators (core/grants.ts `backendGrants`): the tests call as one. */
const ADMIN = programCaller('test').principal;

/** The verification docs/realtime.md gives receivers, as written there. */
function verified(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const timestamp = String(headers['x-roost-timestamp']);
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
  const given = String(headers['x-roost-signature']);
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/**
 * Webhooks (issue 21): each event of the service POSTed as JSON to the URL, signed with the
 * webhook's secret; a failing receiver is tried again with growing pauses; the delivery log
 * says what happened; deliveries wait in the database, so none is lost across a restart.
 */
describe('webhooks', () => {
  const s = useServer({ webhooks: { retrySeconds: 0.05, maxAttempts: 4 }, fileStores: { files: {} } });
  let alice: string;
  before(async () => {
    alice = await s.createUser('alice');
  });

  test('an event of the service arrives signed, with what getItem answers; other services are not sent', async () => {
    const hook = await receiver();
    try {
      const webhook = await s.roost.webhooks.add(ADMIN, { url: hook.url, service: 'data', kinds: [] });
      await s.request('/data/api/newItem', { key: 'w1', value: 'hello' }, { token: alice });
      await s.request('/files/api/@newItem', { name: 'not-sent.txt', type: 'f', contents: 'x' }, { token: alice });
      await s.roost.webhooks.idle();
      assert.equal(hook.received.length, 1);
      const [got] = hook.received;
      assert.ok(got && verified(webhook.secret, got.headers, got.body), 'the signature verifies');
      assert.equal(verified('another-secret', got?.headers ?? {}, got?.body ?? ''), false);
      assert.equal(got?.headers['x-roost-event'], 'item.created');
      assert.equal(got?.headers['content-type'], 'application/json');
      const body = JSON.parse(got?.body ?? '{}');
      const item = await s.request('/data/api/getItem', { key: 'w1' }, { token: alice });
      const { items: _items, result: _result, ...view } = item.body;
      assert.deepEqual(body, { at: body.at, event: 'item.created', store: 'data', key: 'w1', id: view.id, item: view });
      assert.ok(Math.abs(Date.parse(body.at) - Date.now()) < 60_000);
      const [delivery] = await s.roost.webhooks.deliveries(ADMIN, webhook.id, 10);
      assert.deepEqual(
        [delivery?.state, delivery?.attempts, delivery?.lastStatus, got?.headers['x-roost-delivery']],
        ['delivered', 1, 200, delivery?.id],
      );
      await s.roost.webhooks.remove(ADMIN, webhook.id);
    } finally {
      await hook.close();
    }
  });

  test('only the kinds asked for; account events of the users service with the profile', async () => {
    const hook = await receiver();
    try {
      const items = await s.roost.webhooks.add(ADMIN, { url: hook.url, service: 'data', kinds: ['item.removed'] });
      const accounts = await s.roost.webhooks.add(ADMIN, {
        url: hook.url,
        service: 'users',
        kinds: ['account.changed'],
      });
      await s.request('/data/api/newItem', { key: 'w2', value: 1 }, { token: alice });
      await s.request('/data/api/removeItem', { key: 'w2' }, { token: alice });
      await s.users('update', { realname: 'Alice Hooked' }, { token: alice });
      await s.roost.webhooks.idle();
      const bodies = hook.received.map((r) => JSON.parse(r.body));
      assert.deepEqual(
        bodies.map((b) => b.event),
        ['item.removed', 'account.changed'],
      );
      assert.equal(bodies[1].user.realname, 'Alice Hooked');
      await s.roost.webhooks.remove(ADMIN, items.id);
      await s.roost.webhooks.remove(ADMIN, accounts.id);
    } finally {
      await hook.close();
    }
  });

  test('a failing receiver is tried again until it takes it; past the last try it is kept as failed', async () => {
    const hook = await receiver([500, 503]);
    try {
      const webhook = await s.roost.webhooks.add(ADMIN, { url: hook.url, service: 'data', kinds: ['item.created'] });
      await s.request('/data/api/newItem', { key: 'w3', value: 1 }, { token: alice });
      await eventually(async () => hook.received.length === 3, 'three tries');
      await s.roost.webhooks.idle();
      const [delivery] = await s.roost.webhooks.deliveries(ADMIN, webhook.id, 10);
      assert.deepEqual([delivery?.state, delivery?.attempts, delivery?.lastStatus], ['delivered', 3, 200]);
      assert.equal(
        new Set(hook.received.map((r) => r.headers['x-roost-delivery'])).size,
        1,
        'one delivery, three tries',
      );
      await s.roost.webhooks.remove(ADMIN, webhook.id);

      // A receiver that is never there: four tries, then failed, with the error kept.
      const closed = await receiver();
      await closed.close();
      const gone = await s.roost.webhooks.add(ADMIN, { url: closed.url, service: 'data', kinds: [] });
      await s.request('/data/api/newItem', { key: 'w4', value: 1 }, { token: alice });
      await eventually(
        async () => (await s.roost.webhooks.deliveries(ADMIN, gone.id, 1))[0]?.state === 'failed',
        'given up after four tries',
      );
      const [failed] = await s.roost.webhooks.deliveries(ADMIN, gone.id, 1);
      assert.equal(failed?.attempts, 4);
      assert.match(failed?.lastError ?? '', /ECONNREFUSED|fetch failed/);
      await s.roost.webhooks.remove(ADMIN, gone.id);
    } finally {
      await hook.close();
    }
  });

  test('refused: a URL that is not http(s), an unknown service, a kind of another service', async () => {
    for (const [input, field] of [
      [{ url: 'file:///etc/passwd', service: 'data', kinds: [] }, 'url'],
      [{ url: 'not a url', service: 'data', kinds: [] }, 'url'],
      [{ url: 'http://127.0.0.1/x', service: 'nothing', kinds: [] }, 'service'],
      [{ url: 'http://127.0.0.1/x', service: 'data', kinds: ['file.created'] }, 'kinds'],
    ] as const) {
      await assert.rejects(
        s.roost.webhooks.add(ADMIN, { ...input, kinds: [...input.kinds] }),
        (err: { fields: string[][] }) => {
          assert.equal(err.fields[0]?.[0], field);
          return true;
        },
      );
    }
    assert.deepEqual(await s.roost.webhooks.list(ADMIN), []);
  });

  test('the admin backend adds a webhook, shows its secret and delivery log, and removes it', async () => {
    const hook = await receiver();
    try {
      await s.adminToken();
      const cookie = await authCookie(s, 'admin');
      const before = await getPage(s, '/admin/webhooks', cookie);
      assert.doesNotMatch(before.html, /<option[^>]*value="pinned"/);
      // A collection made while Roost runs is a service a webhook may follow, at once.
      const schema = { type: 'object', properties: { text: { type: 'string' } } };
      const made = await s.request(
        '/api/collections',
        { name: 'pinned', schema, rules: {} },
        { token: await s.adminToken() },
      );
      assert.equal(made.status, 201);
      const page = await getPage(s, '/admin/webhooks', cookie);
      assert.equal(page.status, 200);
      for (const service of ['users', 'data', 'files', 'pinned'])
        assert.match(page.html, new RegExp(`<option[^>]*value="${service}"`), service);
      const added = await postForm(
        s,
        '/admin/webhooks',
        { url: hook.url, service: 'data', kinds: 'item.created', add$: 'add$', csrf: csrfOf(page.html) },
        { cookie, headers: { origin: s.url } },
      );
      assert.equal(added.status, 303, textOf(added.html));
      const [webhook] = await s.roost.webhooks.list(ADMIN);
      assert.equal(added.location, `/admin/webhooks/${webhook?.id}`);
      await s.request('/data/api/newItem', { key: 'w5', value: 1 }, { token: alice });
      await s.roost.webhooks.idle();
      const detail = await getPage(s, added.location ?? '', cookie);
      assert.match(detail.html, new RegExp(webhook?.secret ?? 'no secret'));
      assert.match(textOf(detail.html), /item\.created\s*delivered\s*1\s*200/);
      const removed = await postForm(
        s,
        added.location ?? '',
        { confirm: webhook?.id ?? '', remove$: 'remove$', csrf: csrfOf(detail.html) },
        { cookie, headers: { origin: s.url } },
      );
      assert.equal(removed.status, 303);
      assert.deepEqual(await s.roost.webhooks.list(ADMIN), []);
      // Not for a signed-in user who is not an administrator.
      const bob = await s.createUser('bob');
      assert.ok(bob);
      assert.equal((await getPage(s, '/admin/webhooks', await authCookie(s, 'bob'))).status, 403);
    } finally {
      await hook.close();
    }
  });
});

describe('webhooks across a restart', () => {
  let first: TestServer | undefined;
  let second: TestServer | undefined;
  after(async () => {
    await second?.close();
    await first?.close().catch(() => {});
  });

  test('deliveries waiting for a receiver that is down are delivered after Roost starts again', async () => {
    const hook = await receiver();
    const { port } = hook;
    await hook.close();
    first = await startServer({ webhooks: { retrySeconds: 0.05, maxAttempts: 100 } });
    const token = await first.createUser('carol');
    const webhook = await first.roost.webhooks.add(ADMIN, {
      url: `http://127.0.0.1:${port}/hook`,
      service: 'data',
      kinds: [],
    });
    for (const key of ['r1', 'r2', 'r3']) await first.request('/data/api/newItem', { key, value: 1 }, { token });
    await eventually(
      async () =>
        (await first?.roost.webhooks.deliveries(ADMIN, webhook.id, 10))?.every((d) => d.attempts >= 1) ?? false,
      'tried once each',
    );
    const dataDir = first.roost.config.dataDir;
    const { databaseUrl, databaseDirectUrl } = first.roost.config;
    await first.roost.close();

    // The receiver comes back on its port; so does Roost, on the same data.
    const back = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        keys.push(JSON.parse(body).key);
        response.end();
      });
    });
    const keys: string[] = [];
    await new Promise<void>((resolve) => back.listen(port, '127.0.0.1', resolve));
    try {
      second = await startServer({
        dataDir,
        ...(databaseUrl ? { databaseUrl, databaseDirectUrl } : {}),
        webhooks: { retrySeconds: 0.05 },
      });
      await eventually(async () => keys.length >= 3, 'all three delivered after the restart');
      await second.roost.webhooks.idle();
      assert.deepEqual([...keys].sort(), ['r1', 'r2', 'r3']);
    } finally {
      await new Promise<void>((resolve) => back.close(() => resolve()));
    }
  });
});
