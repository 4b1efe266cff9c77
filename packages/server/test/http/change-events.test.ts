import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseConfig } from '../../src/core/config.js';
import type { Told } from '../../src/core/events.js';
import { openServices } from '../../src/services.js';
import { programCaller } from '../../src/users/index.js';
import { createMigratedPostgresDatabase, useServer } from '../helpers/test-server.js';
import { userIdOf } from '../helpers/datastore.js';
import { eventually, onPostgres } from '../scale/scale-helpers.js';

/**
 * The events a listener saw, without the time (`at`) and the request's id, which each test checks
 * once (test/http/request-causes.test.ts follows the id further).
 */
const shapes = (seen: Told[]) => seen.map(({ at: _at, requestId: _requestId, ...event }) => event);

/**
 * One typed event after each committed write of the three services (core/events.ts), whoever
 * wrote it; nothing for a refused write. Through HTTP here, so the operations run as clients
 * call them.
 */
describe('change events', () => {
  let alice: string;
  let admin: string;
  let seen: Told[] = [];
  const s = useServer({ fileStores: { files: {} } });
  before(async () => {
    s.roost.events.onAny((event) => seen.push(event));
    alice = await s.createUser('alice');
    admin = await s.adminToken();
    seen = [];
  });

  test('items: created, replaced (by key and by id), owner changed, removed; a refused write is silent', async () => {
    const before = Date.now();
    const made = await s.request(
      '/data/api/newItem',
      {
        items: [
          { key: 'a', value: 1 },
          { key: 'b', value: 2 },
        ],
      },
      { token: alice },
    );
    assert.equal(made.status, 200);
    // Each event carries the id of the request that caused it (core/events.ts `Cause`).
    const madeBy = made.headers.get('x-request-id');
    assert.deepEqual(
      seen.map((e) => e.requestId),
      [madeBy, madeBy],
    );
    const [, idOfB] = made.body.success[1] as [string, number];
    assert.equal((await s.request('/data/api/newItem', { key: 'a', value: 3 }, { token: alice })).status, 409);
    await s.request('/data/api/setItem', { key: 'a', value: 'x' }, { token: alice });
    await s.request(
      '/data/api/setItem',
      {
        items: [
          { id: idOfB, value: 'y' },
          { key: 'c', value: 'z' },
        ],
      },
      { token: alice },
    );
    await s.request('/data/api/setOwner', { key: 'c', newOwner: 'alice' }, { token: admin });
    await s.request('/data/api/removeItem', { key: ['a', 'missing'] }, { token: alice });
    const events = shapes(seen);
    const aliceId = await userIdOf(s, alice);
    const idOf = (key: string) => (events.find((e) => 'key' in e && e.key === key && 'id' in e) as { id?: number })?.id;
    assert.deepEqual(events, [
      { kind: 'item.created', store: 'data', key: 'a', id: idOf('a'), local: true },
      { kind: 'item.created', store: 'data', key: 'b', id: idOfB, local: true },
      { kind: 'item.replaced', store: 'data', key: 'a', local: true },
      { kind: 'item.replaced', store: 'data', key: 'b', id: idOfB, local: true },
      { kind: 'item.created', store: 'data', key: 'c', local: true },
      // A removal and a change of owner say whose the item was (who could read it then).
      { kind: 'item.owner_changed', store: 'data', key: 'c', id: idOf('c'), owner: aliceId, local: true },
      { kind: 'item.removed', store: 'data', key: 'a', id: idOf('a'), owner: aliceId, local: true },
    ]);
    assert.ok(seen.every((e) => e.at >= before && e.at <= Date.now()));
    seen = [];
  });

  test('file entries: created, written, moved, owner changed, removed', async () => {
    await s.request('/files/@newItem', { name: 'notes.txt', contents: 'one' }, { token: alice });
    await s.request('/files/notes.txt/@write', { contents: 'two' }, { token: alice });
    await s.request('/files/notes.txt/@move', { newpath: 'kept.txt' }, { token: alice });
    await s.request('/files/kept.txt/@setOwner', { owner: 'alice' }, { token: admin });
    assert.equal((await s.request('/files/kept.txt/@move', { newpath: 'kept.txt/x' }, { token: alice })).status, 422);
    await s.request('/files/kept.txt/@removeItem', {}, { token: alice });
    const aliceId = await userIdOf(s, alice);
    assert.deepEqual(shapes(seen), [
      { kind: 'file.created', store: 'files', path: 'notes.txt', local: true },
      { kind: 'file.written', store: 'files', path: 'notes.txt', local: true },
      { kind: 'file.moved', store: 'files', path: 'notes.txt', to: 'kept.txt', local: true },
      { kind: 'file.owner_changed', store: 'files', path: 'kept.txt', owner: aliceId, local: true },
      { kind: 'file.removed', store: 'files', path: 'kept.txt', owner: aliceId, local: true },
    ]);
    seen = [];
  });

  test('accounts: changed, signed out, disabled, removed; signing in tells nothing', async () => {
    const bob = await s.createUser('bob');
    const id = (await s.users('identity', {}, { token: bob })).body.id as string;
    seen = [];
    await s.users('token', { identity: 'bob', password: 'a-good-password' });
    await s.users('update', { realname: 'Bob' }, { token: bob });
    await s.users('signout', {}, { token: bob });
    const again = (await s.users('token', { identity: 'bob', password: 'a-good-password' })).body.token as string;
    await s.users('disable', {}, { token: again });
    await s.users('removeUser', { identity: 'bob' }, { token: admin });
    assert.deepEqual(
      shapes(seen).filter((e) => 'userId' in e && e.userId === id),
      [
        { kind: 'account.changed', userId: id, local: true },
        { kind: 'account.signed_out', userId: id, local: true },
        { kind: 'account.disabled', userId: id, local: true },
        { kind: 'account.removed', userId: id, local: true },
      ],
    );
    seen = [];
  });

  test('a listener that throws stops neither the write nor the other listeners', async () => {
    const stop = s.roost.events.onAny(() => {
      throw new Error('a broken listener');
    });
    try {
      const res = await s.request('/data/api/setItem', { key: 'after', value: 1 }, { token: alice });
      assert.equal(res.status, 200);
      assert.deepEqual(shapes(seen), [{ kind: 'item.created', store: 'data', key: 'after', local: true }]);
    } finally {
      stop();
      seen = [];
    }
  });
});

describe('change events between processes on PostgreSQL', {
  skip: !onPostgres && 'runs in the PostgreSQL pass',
}, () => {
  test('what one process writes, the other is told, once, in order', async () => {
    const database = await createMigratedPostgresDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'roost-events-'));
    const config = (name: string) => parseConfig({ ...database.settings, dataDir: join(dir, name) }, dir);
    const a = await openServices(config('a'));
    const b = await openServices(config('b'));
    try {
      const told: Told[] = [];
      b.events.onAny((event) => told.push(event));
      const user = await a.users.createUser(programCaller('test'), { name: 'carol', password: 'a-good-password' });
      const carol = a.users.callerFor(user);
      const data = a.dataStores.get('data');
      assert.ok(data);
      await data.set(carol.principal, {
        items: [
          { key: 'k1', value: 1 },
          { key: 'k2', value: 2 },
        ],
      });
      await data.remove(carol.principal, { key: 'k1' });
      await eventually(async () => told.length >= 4, 'four events in process b');
      assert.deepEqual(
        told.map((e) => [e.kind, e.local, 'key' in e ? e.key : 'userId' in e ? e.userId : null]),
        [
          ['account.created', false, user.id],
          ['item.created', false, 'k1'],
          ['item.created', false, 'k2'],
          ['item.removed', false, 'k1'],
        ],
      );
    } finally {
      await a.close();
      await b.close();
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('one channel: an account change is one message, its invalidations ahead of its event', async () => {
    const database = await createMigratedPostgresDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'roost-channel-'));
    const a = await openServices(parseConfig({ ...database.settings, dataDir: dir }, dir));
    const listener = new pg.Client({ connectionString: database.directUrl });
    try {
      await listener.connect();
      const messages: string[] = [];
      listener.on('notification', (message) => messages.push(message.payload ?? ''));
      await listener.query('listen roost_changes');
      // The account's creation is told after createUser returns (events leave after the commit), so
      // wait for its message before the write under test; otherwise it may land among that write's.
      const user = await a.users.createUser(programCaller('test'), { name: 'dora', password: 'a-good-password' });
      const dora = a.users.callerFor(user);
      await eventually(async () => messages.some((m) => m.includes('account.created')), 'the creation message');
      messages.length = 0;
      await a.users.update(dora, { realname: 'Dora D' });
      await eventually(async () => messages.length > 0, 'the message of the change');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(messages.length, 1, `one NOTIFY for the write: ${JSON.stringify(messages)}`);
      const [, topic, key] = (messages[0] ?? '').split('\n');
      assert.equal(topic, 'events');
      const entries: Array<{ forget?: string; kind?: string }> = JSON.parse(key ?? '[]');
      const forgets = entries.flatMap((e, i) => (e.forget ? [i] : []));
      const told = entries.findIndex((e) => e.kind === 'account.changed');
      assert.ok(forgets.length > 0 && told >= 0, JSON.stringify(entries));
      assert.ok(Math.max(...forgets) < told, 'what caches forget comes before the event');
    } finally {
      await listener.end();
      await a.close();
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
