import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeEvent, Told } from '../core/events.js';
import { isRoostError } from '../core/errors.js';
import { ReplayLog } from './replay-log.js';
import { StreamBuffer } from './stream-buffer.js';
import { admitTopics } from './topics.js';
import { ANONYMOUS } from '../core/permissions.js';
import { storeRegistry } from '../core/store-registry.js';
import type { DataStore } from '../datastore/index.js';
import type { FileStore } from '../filestore/index.js';
import { accountFamily } from './families/account-family.js';
import { fileFamily, fileMatches, parseFileTopic } from './families/file-family.js';
import { itemFamily, itemMatches, parseItemTopic } from './families/item-family.js';

const told = (event: ChangeEvent, at = 0): Told => ({ ...event, at, local: true });
const item = (key: string, store = 'notes') => told({ kind: 'item.created', store, key });
const file = (path: string, store = 'docs') => told({ kind: 'file.written', store, path });

const unreachable = (): never => {
  throw new Error('no store is configured');
};

describe('topics', () => {
  // The families as the server makes them, over no configured store: parsing needs none.
  const families = [
    itemFamily(
      storeRegistry<never, DataStore>({}, () => unreachable()),
      () => ({}),
    ),
    fileFamily(
      storeRegistry<never, FileStore>({}, () => unreachable()),
      () => ({}),
    ),
    accountFamily(
      async () => null,
      () => ({}),
    ),
  ];

  test('the written forms parse to what they ask for', () => {
    assert.deepEqual(parseItemTopic('items/notes'), { store: 'notes' });
    assert.deepEqual(parseItemTopic('items/notes?keys=a,b'), { store: 'notes', keys: new Set(['a', 'b']) });
    assert.deepEqual(parseItemTopic('items/notes?prefix=todo%2F'), { store: 'notes', prefix: 'todo/' });
    assert.deepEqual(parseFileTopic('files/docs'), { store: 'docs', dir: '', subtree: false });
    assert.deepEqual(parseFileTopic('files/docs/a/b/**'), { store: 'docs', dir: 'a/b', subtree: true });
  });

  test('missing, wrong and hostile topics are validation failures naming the topic', async () => {
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
      'account/someone',
      '__proto__',
      'items/notes?keys=a\nevent: x',
      'files/docs/a\rb',
    ]) {
      await assert.rejects(
        admitTopics([bad], ANONYMOUS, families, 10),
        (err) => isRoostError(err) && err.code === 'validation_failure' && err.fields[0]?.[0] === 'topic',
        JSON.stringify(bad.slice(0, 40)),
      );
    }
  });

  test('items: the store, then keys or prefix', () => {
    assert.equal(itemMatches(parseItemTopic('items/notes'), item('a')), true);
    assert.equal(itemMatches(parseItemTopic('items/notes'), item('a', 'other')), false);
    assert.equal(itemMatches(parseItemTopic('items/notes?keys=a,b'), item('b')), true);
    assert.equal(itemMatches(parseItemTopic('items/notes?keys=a,b'), item('c')), false);
    assert.equal(itemMatches(parseItemTopic('items/notes?prefix=to'), item('todo')), true);
    assert.equal(itemMatches(parseItemTopic('items/notes?prefix=to'), item('xto')), false);
    assert.equal(itemMatches(parseItemTopic('items/notes'), file('a', 'notes')), false);
  });

  test('files: the entries of a directory, or its subtree; a move in or out', () => {
    const dir = parseFileTopic('files/docs/reports');
    const tree = parseFileTopic('files/docs/reports/**');
    assert.equal(fileMatches(dir, file('reports/q1.txt')), true);
    assert.equal(fileMatches(dir, file('reports/2026/q1.txt')), false);
    assert.equal(fileMatches(tree, file('reports/2026/q1.txt')), true);
    assert.equal(fileMatches(tree, file('reportsX/q1.txt')), false);
    assert.equal(fileMatches(parseFileTopic('files/docs'), file('top.txt')), true);
    const moved = told({ kind: 'file.moved', store: 'docs', path: 'inbox/a.txt', to: 'reports/a.txt' });
    assert.equal(fileMatches(dir, moved), true, 'moved in');
    assert.equal(fileMatches(parseFileTopic('files/docs/inbox'), moved), true, 'moved out');
  });

  test("account: the subscriber's own account only, signed in", async () => {
    const changed = told({ kind: 'account.changed', userId: 'u1' });
    const [[, own] = []] = await admitTopics(['account'], { userId: 'u1', name: 'a', groups: [] }, families, 10);
    assert.equal(own?.matches(changed), true);
    const [[, other] = []] = await admitTopics(['account'], { userId: 'u2', name: 'b', groups: [] }, families, 10);
    assert.equal(other?.matches(changed), false);
    await assert.rejects(admitTopics(['account'], ANONYMOUS, families, 10), { code: 'not_signed_in' });
  });
});

/** The ids the log answers after `position`, or 'reload'. */
function idsSince(log: ReplayLog, position: number): number[] | 'reload' {
  const since = log.since(position);
  return since === 'reload' ? since : since.map((e) => e.id);
}

describe('replay log', () => {
  test('resumes after the last id seen; past the window the answer is reload, never a gap', () => {
    let now = 1000;
    const log = new ReplayLog({ capacity: 3, maxAgeMs: 60_000, now: () => now });
    assert.deepEqual(log.since(0), []);
    const ids = ['a', 'b', 'c', 'd'].map((k) => log.append(item(k, 'notes')));
    assert.deepEqual(ids, [1, 2, 3, 4]);
    assert.deepEqual(idsSince(log, 2), [3, 4]);
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
    assert.deepEqual(idsSince(log, 4), [5]);
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
