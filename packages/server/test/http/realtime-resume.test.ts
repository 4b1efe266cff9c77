import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { openStream, streamsOf } from '../helpers/event-stream.js';
import { useServer } from '../helpers/test-server.js';

const keysOf = (events: Array<{ data: { key?: string } }>) => events.map((e) => e.data.key);

/**
 * Coming back after a dropped connection (issue 21, "Resume"): `Last-Event-ID` replays every
 * missed event exactly once, then the live ones follow without a gap or a repeat; past the
 * window the client gets `reload`, never a silent gap. A reader that does not keep up is
 * dropped with a reason instead of growing the server's memory.
 */
describe('live changes: resume and slow readers', () => {
  const s = useServer({ realtime: { replayEvents: 20, bufferBytes: 4096 } });
  const open = streamsOf(() => s.url);
  const write = (token: string, key: string) => s.request('/data/api/setItem', { key, value: key }, { token });

  test('a dropped stream resumes from its last id: what it missed once, then live', async () => {
    const alice = await s.createUser('alice');
    const first = await open({ token: alice, topics: ['items/data?prefix=r/'] });
    await write(alice, 'r/1');
    await write(alice, 'r/2');
    const seen = [await first.next(), await first.next()];
    assert.deepEqual(keysOf(seen), ['r/1', 'r/2']);
    first.close();
    await write(alice, 'r/3');
    await write(alice, 'other');
    await write(alice, 'r/4');
    // Writes while the new stream replays must come once, after the replay.
    const back = open({ token: alice, topics: ['items/data?prefix=r/'], lastEventId: seen[1]?.id });
    const during = write(alice, 'r/5');
    const second = await back;
    await during;
    await write(alice, 'r/6');
    const got = [await second.next(), await second.next(), await second.next(), await second.next()];
    assert.deepEqual(keysOf(got), ['r/3', 'r/4', 'r/5', 'r/6']);
    assert.deepEqual(await second.quiet(), []);
    const ids = got.map((e) => Number(e.id?.split('-')[1]));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
  });

  test('a client that got nothing yet resumes from the id of its connect event', async () => {
    const bob = await s.createUser('bob');
    const first = await open({ token: bob, topics: ['items/data?prefix=b/'] });
    first.close();
    await write(bob, 'b/1');
    const back = await open({ token: bob, topics: ['items/data?prefix=b/'], lastEventId: first.connectId });
    assert.deepEqual(keysOf([await back.next()]), ['b/1']);
  });

  test('token mode: the replay waits for the posted subscriptions', async () => {
    const carol = await s.createUser('carol');
    const first = await open({ token: carol, topics: ['items/data?prefix=c/'] });
    first.close();
    await write(carol, 'c/1');
    const back = await open({ lastEventId: first.connectId });
    const posted = await s.request(
      '/api/realtime',
      { clientId: back.clientId, topics: ['items/data?prefix=c/'] },
      { token: carol },
    );
    assert.equal(posted.status, 200);
    assert.deepEqual(keysOf([await back.next()]), ['c/1']);
  });

  test('past the window, or an id of another process or start: reload, never a gap', async () => {
    const dave = await s.createUser('dave');
    const first = await open({ token: dave, topics: ['items/data?prefix=d/'] });
    first.close();
    for (let i = 0; i < 25; i++) await write(dave, `d/${i}`);
    const late = await open({ token: dave, topics: ['items/data?prefix=d/'], lastEventId: first.connectId });
    const reload = await late.next();
    assert.equal(reload.event, 'reload');
    assert.match(reload.id ?? '', /^[0-9a-f]{8}-\d+$/);
    await write(dave, 'd/after');
    assert.deepEqual(keysOf([await late.next()]), ['d/after']);

    for (const stranger of ['00000000-1', 'nonsense', `${first.connectId?.split('-')[0]}-99999999`]) {
      const other = await open({ token: dave, topics: ['items/data?prefix=d/'], lastEventId: stranger });
      assert.equal((await other.next()).event, 'reload', stranger);
    }
  });

  test('a reader that stops reading is closed once its buffer is full; the server goes on', async () => {
    const erin = await s.createUser('erin');
    // A raw socket that sends the request and never reads: the kernel's buffers fill, then Roost's.
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`GET /api/realtime?topic=items/data HTTP/1.1\r\nHost: 127.0.0.1\r\nx-auth-token: ${erin}\r\n\r\n`);
    socket.pause();
    let received = 0;
    // Loopback buffers grow to tens of megabytes here (net.ipv4.tcp_rmem): large items fill them sooner.
    const value = 'x'.repeat(60_000);
    const writes = 800;
    for (let i = 0; i < writes; i++) {
      const res = await s.request('/data/api/setItem', { key: `slow/${i % 50}`, value }, { token: erin });
      assert.equal(res.status, 200);
    }
    // Reading now: a stream still open would go on forever; a dropped one ends, short of the whole.
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.on('error', () => {});
    socket.resume();
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 10_000).unref());
    assert.equal(await Promise.race([closed.then(() => 'closed'), timeout]), 'closed');
    assert.ok(received < writes * value.length, `${received} bytes arrived: nothing was dropped`);
    // The server goes on: a new stream opens and hears the next write.
    const after = await open({ token: erin, topics: ['items/data?prefix=slow/'] });
    await s.request('/data/api/setItem', { key: 'slow/last', value: 1 }, { token: erin });
    assert.equal((await after.next()).data.key, 'slow/last');
  });
});

describe('live changes: heartbeats, and no stream for longer than the window', () => {
  const s = useServer({ realtime: { heartbeatSeconds: 0.2, replaySeconds: 1 } });

  test('a quiet stream gets a comment line every heartbeat', async () => {
    const token = await s.createUser('quiet');
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.write(`GET /api/realtime?topic=account HTTP/1.1\r\nHost: 127.0.0.1\r\nx-auth-token: ${token}\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 700));
    socket.destroy();
    const beats = text.split('\n:\n\n').length - 1;
    assert.ok(beats >= 2, `${beats} heartbeats in 700 ms: ${JSON.stringify(text.slice(-200))}`);
  });

  test('after no stream was open for longer than the window, a returning client gets reload', async () => {
    const token = await s.createUser('away');
    const first = await openStream(s.url, { token, topics: ['items/data'] });
    first.close();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await s.request('/data/api/setItem', { key: 'while-away', value: 1 }, { token });
    const back = await openStream(s.url, { token, topics: ['items/data'], lastEventId: first.connectId });
    try {
      assert.equal((await back.next()).event, 'reload');
    } finally {
      back.close();
    }
  });
});
