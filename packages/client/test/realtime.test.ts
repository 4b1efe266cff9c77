import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { datastore, isRoostError, realtime, type LiveEvent, type RoostError } from '../src/index.js';
import { startRoost, type TestServer } from './helpers/roost.js';

/** Events a subscription received, with a wait for the next ones. */
function collector() {
  const events: LiveEvent[] = [];
  let wake: (() => void) | null = null;
  return {
    events,
    handler: (event: LiveEvent) => {
      events.push(event);
      wake?.();
    },
    async until(count: number, ms = 8000): Promise<LiveEvent[]> {
      const deadline = Date.now() + ms;
      while (events.length < count) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`${events.length} of ${count} events within ${ms} ms: ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return events.slice(0, count);
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const keyOf = (event: LiveEvent) => ('key' in event ? event.key : event.event);

/** `realtime().subscribe` in Node against a real Roost: topics on one stream, resume after a drop, refusals. */
describe('live changes connector (Node)', () => {
  let s: TestServer;
  let token: string;
  before(async () => {
    s = await startRoost();
    token = await s.createUser('alice');
  });
  after(() => s.close());

  test('one stream for every subscription; adding and ending topics while it is open', async () => {
    const live = realtime({ baseUrl: s.url, token });
    const data = datastore('data', { baseUrl: s.url, token });
    const all = collector();
    const stopAll = live.subscribe('items/data', all.handler);
    await live.ready();
    await data.newItem('first', 1);
    const [first] = await all.until(1);
    assert.equal(first?.event, 'item.created');
    assert.equal(first?.topic, 'items/data');
    assert.deepEqual(
      'item' in (first ?? {}) ? (first as { item: unknown }).item : null,
      (await data.getItem('first')).items[0],
    );
    assert.equal(live.connected, true);

    // A second topic on the same stream, posted by its client id.
    const notes = collector();
    const stopNotes = live.subscribe('items/notes', notes.handler);
    await live.ready();
    await datastore('notes', { baseUrl: s.url, token }).newItem('n', 1);
    assert.equal(keyOf((await notes.until(1))[0] as LiveEvent), 'n');

    stopAll();
    await pause(200);
    await data.newItem('unheard', 1);
    await pause(300);
    assert.equal(all.events.length, 1);
    stopNotes();
    await pause(100);
    assert.equal(live.connected, false);
  });

  test('a dropped connection comes back by itself with what it missed, once', async () => {
    const live = realtime({ baseUrl: s.url, token });
    const data = datastore('data', { baseUrl: s.url, token });
    const seen = collector();
    const stop = live.subscribe('items/data?prefix=r/', seen.handler);
    await live.ready();
    await data.setItem('r/1', 1);
    await seen.until(1);
    // Every connection of the server drops, the stream's too (and the connector's idle one: let it see that).
    s.roost.http.server.closeAllConnections();
    await pause(50);
    await data.setItem('r/2', 2);
    await data.setItem('r/3', 3);
    const got = await seen.until(3);
    assert.deepEqual(got.map(keyOf), ['r/1', 'r/2', 'r/3']);
    await data.setItem('r/4', 4);
    await seen.until(4);
    await pause(200);
    assert.deepEqual(seen.events.map(keyOf), ['r/1', 'r/2', 'r/3', 'r/4']);
    stop();
  });

  test('a topic the caller may not read is refused to its subscription, which is told', async () => {
    const live = realtime({ baseUrl: s.url });
    const failed = new Promise<RoostError>((resolve) => {
      live.subscribe('items/data', () => {}, { onError: resolve });
    });
    const error = await failed;
    assert.ok(isRoostError(error));
    assert.equal(error.code, 'not_signed_in');
    assert.equal(error.status, 401);
    assert.throws(() => live.subscribe('', () => {}), TypeError);
  });
});
