import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeEvent, Told } from '../core/events.js';
import { isRoostError } from '../core/errors.js';
import { ReplayLog } from './replay-log.js';
import { StreamBuffer } from './stream-buffer.js';
import { matches, parseTopic } from './topics.js';

const told = (event: ChangeEvent, at = 0): Told => ({ ...event, at, local: true });
const item = (key: string, store = 'notes') => told({ kind: 'item.created', store, key });
const file = (path: string, store = 'docs') => told({ kind: 'file.written', store, path });

describe('topics', () => {
  test('the written forms parse to what they ask for', () => {
    assert.deepEqual(parseTopic('items/notes'), { kind: 'items', store: 'notes' });
    assert.deepEqual(parseTopic('items/notes?keys=a,b'), { kind: 'items', store: 'notes', keys: new Set(['a', 'b']) });
    assert.deepEqual(parseTopic('items/notes?prefix=todo%2F'), { kind: 'items', store: 'notes', prefix: 'todo/' });
    assert.deepEqual(parseTopic('files/docs'), { kind: 'files', store: 'docs', dir: '', subtree: false });
    assert.deepEqual(parseTopic('files/docs/a/b/**'), { kind: 'files', store: 'docs', dir: 'a/b', subtree: true });
    assert.deepEqual(parseTopic('account'), { kind: 'account' });
  });

  test('missing, wrong and hostile topics are validation failures naming the topic', () => {
    for (const bad of [
      '',
      'x'.repeat(3000),
      'items',
      'items/',
      'items/no such',
      'items/notes/extra',
      'items/notes?keys=',
      'items/notes?keys=a&prefix=b',
      'items/notes?other=1',
      'files/docs/../etc',
      'files/docs/a//b',
      'files/docs/@read',
      'files/docs?x=1',
      'users/everyone',
      '__proto__',
      'items/notes?keys=a\nevent: x',
      'files/docs/a\rb',
    ]) {
      assert.throws(
        () => parseTopic(bad),
        (err) => isRoostError(err) && err.code === 'validation_failure' && err.fields[0]?.[0] === 'topic',
        JSON.stringify(bad.slice(0, 40)),
      );
    }
  });

  test('items: the store, then keys or prefix', () => {
    assert.equal(matches(parseTopic('items/notes'), item('a'), null), true);
    assert.equal(matches(parseTopic('items/notes'), item('a', 'other'), null), false);
    assert.equal(matches(parseTopic('items/notes?keys=a,b'), item('b'), null), true);
    assert.equal(matches(parseTopic('items/notes?keys=a,b'), item('c'), null), false);
    assert.equal(matches(parseTopic('items/notes?prefix=to'), item('todo'), null), true);
    assert.equal(matches(parseTopic('items/notes?prefix=to'), item('xto'), null), false);
    assert.equal(matches(parseTopic('items/notes'), file('a', 'notes'), null), false);
  });

  test('files: the entries of a directory, or its subtree; a move in or out', () => {
    const dir = parseTopic('files/docs/reports');
    const tree = parseTopic('files/docs/reports/**');
    assert.equal(matches(dir, file('reports/q1.txt'), null), true);
    assert.equal(matches(dir, file('reports/2026/q1.txt'), null), false);
    assert.equal(matches(tree, file('reports/2026/q1.txt'), null), true);
    assert.equal(matches(tree, file('reportsX/q1.txt'), null), false);
    assert.equal(matches(parseTopic('files/docs'), file('top.txt'), null), true);
    const moved = told({ kind: 'file.moved', store: 'docs', path: 'inbox/a.txt', to: 'reports/a.txt' });
    assert.equal(matches(dir, moved, null), true, 'moved in');
    assert.equal(matches(parseTopic('files/docs/inbox'), moved, null), true, 'moved out');
  });

  test("account: the subscriber's own account only", () => {
    const changed = told({ kind: 'account.changed', userId: 'u1' });
    assert.equal(matches(parseTopic('account'), changed, 'u1'), true);
    assert.equal(matches(parseTopic('account'), changed, 'u2'), false);
    assert.equal(matches(parseTopic('account'), changed, null), false);
  });
});

describe('replay log', () => {
  test('resumes after the last id seen; past the window the answer is reload, never a gap', () => {
    let now = 1000;
    const log = new ReplayLog({ capacity: 3, maxAgeMs: 60_000, now: () => now });
    assert.deepEqual(log.since(0), []);
    const ids = ['a', 'b', 'c', 'd'].map((k) => log.append(item(k, 'notes')));
    assert.deepEqual(ids, [1, 2, 3, 4]);
    assert.deepEqual(
      (log.since(2) as { id: number }[]).map((e) => e.id),
      [3, 4],
    );
    assert.deepEqual(log.since(4), []);
    assert.equal(log.since(0), 'reload', 'event 1 left the window');
    assert.equal(log.since(5), 'reload', 'an id never given out here');
    assert.equal(log.since(-1), 'reload');
    now += 120_000;
    assert.equal(log.since(3), 'reload', 'too old');
  });

  test('nobody resumes across a gap (events of other processes lost); after it, as before', () => {
    const log = new ReplayLog({ capacity: 10, maxAgeMs: 60_000, now: () => 0 });
    for (const k of ['a', 'b', 'c']) log.append(item(k));
    log.gap();
    assert.equal(log.since(1), 'reload');
    assert.equal(log.since(3), 'reload', 'it had seen all before the gap, not what the gap lost');
    assert.equal(log.last, 4, 'an id skipped: where clients after the gap start');
    assert.deepEqual(log.since(4), []);
    log.append(item('d'));
    assert.deepEqual(
      (log.since(4) as { id: number }[]).map((e) => e.id),
      [5],
    );
  });
});

describe('stream buffer', () => {
  test('queues up to its bound, then refuses for good and lets go of what it held', () => {
    const buffer = new StreamBuffer(10);
    assert.equal(buffer.push('12345'), true);
    assert.equal(buffer.push('6789'), true);
    assert.equal(buffer.take().toString(), '123456789');
    assert.equal(buffer.push('abcdef'), true);
    assert.equal(buffer.push('ghijk'), false);
    assert.equal(buffer.overflowed, true);
    assert.equal(buffer.bytes, 0);
    assert.equal(buffer.push('x'), false);
  });
});
