import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus, type Told } from './events.js';

test('a listener gets the kinds it asked for, or every kind; stopping it stops it', () => {
  const bus = createEventBus({ now: () => 1 });
  const accounts: Told[] = [];
  const all: Told[] = [];
  const stopAccounts = bus.on(['account.changed'], (e) => accounts.push(e));
  const stopAll = bus.onAny((e) => all.push(e));
  bus.emit({ kind: 'item.created', store: 'data', key: 'k' });
  bus.emit({ kind: 'account.changed', userId: 'u1' });
  assert.deepEqual(
    accounts.map((e) => e.kind),
    ['account.changed'],
  );
  assert.deepEqual(
    all.map((e) => [e.kind, e.at, e.local]),
    [
      ['item.created', 1, true],
      ['account.changed', 1, true],
    ],
  );
  stopAccounts();
  stopAll();
  bus.emit({ kind: 'account.changed', userId: 'u2' });
  assert.equal(accounts.length + all.length, 3);
});

test('an event nobody listens to here, with no other process to tell, costs not even the time', () => {
  let asked = 0;
  const bus = createEventBus({ now: () => ++asked });
  bus.on('account.removed', () => {});
  bus.emit({ kind: 'item.replaced', store: 'data', key: 'k' });
  assert.equal(asked, 0);
  bus.emit({ kind: 'account.removed', userId: 'u' });
  assert.equal(asked, 1);
});

test('a listener that throws is reported and does not stop the others', () => {
  const errors: unknown[] = [];
  const bus = createEventBus({ now: () => 0, onError: (err) => errors.push(err) });
  let reached = false;
  bus.onAny(() => {
    throw new Error('listener failed');
  });
  bus.onAny(() => {
    reached = true;
  });
  bus.emit({ kind: 'file.created', store: 'files', path: 'a.txt' });
  assert.ok(reached);
  assert.equal(errors.length, 1);
});

test('a listener of some kinds gets each as its type, and only those', () => {
  const bus = createEventBus({ now: () => 0 });
  const keys: string[] = [];
  // `event.key` and `event.userId` type-check only because `on` hands each kind its type.
  bus.on(['item.created', 'item.removed'], (event) => keys.push(`${event.kind} ${event.key}`));
  bus.on('account.changed', (event) => keys.push(`${event.kind} ${event.userId}`));
  bus.emit({ kind: 'item.created', store: 'data', key: 'a' });
  bus.emit({ kind: 'item.replaced', store: 'data', key: 'b' });
  bus.emit({ kind: 'account.changed', userId: 'u' });
  bus.emit({ kind: 'item.removed', store: 'data', key: 'c' });
  assert.deepEqual(keys, ['item.created a', 'account.changed u', 'item.removed c']);
});
