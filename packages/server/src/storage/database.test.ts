import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limitPlannedOnce, withRowsMadeHere } from './sqlite-statements.js';
import { SQLite } from './sqlite-driver.js';

/** A statement read both ways: better-sqlite3's own row objects and those made here. */
function bothWays(sqlite: InstanceType<typeof SQLite>, text: string) {
  return { own: sqlite.prepare(text), madeHere: withRowsMadeHere(sqlite.prepare(text)) };
}

test("rows made here equal better-sqlite3's own, whatever the column names hold, duplicates and types included", () => {
  const sqlite = new SQLite(':memory:');
  const names = ['plain', 'with "quote"', "it's", 'back\\slash', 'new\nline', '\u2028', 'ünï ✓', '0', 'a a', ''];
  const columns = names.map((name, i) => `${i} as "${name.replaceAll('"', '""')}"`);
  const others = `1.5 as "real", null as "nothing", x'00ff' as "blob", 'first' as d, 'last' as d`;
  const text = `select ${columns.join(', ')}, ${others}`;
  const { own, madeHere } = bothWays(sqlite, text);
  assert.deepStrictEqual(madeHere.all([]), own.all([]));
  assert.deepStrictEqual([...madeHere.iterate([])], [...own.iterate([])]);
  assert.deepStrictEqual(Object.keys(madeHere.all([])[0] as object), Object.keys(own.all([])[0] as object));
  sqlite.close();
});

test('a kept statement whose table gains a column reads the new column too', () => {
  const sqlite = new SQLite(':memory:');
  sqlite.exec('create table t (a integer); insert into t values (1)');
  const select = withRowsMadeHere(sqlite.prepare('select * from t'));
  assert.deepStrictEqual(select.all([]), [{ a: 1 }]);
  sqlite.exec("alter table t add column b text default 'x'");
  assert.deepStrictEqual(select.all([]), [{ a: 1, b: 'x' }]);
  sqlite.close();
});

test('writes run as before: changes and the last row id', () => {
  const sqlite = new SQLite(':memory:');
  sqlite.exec('create table t (id integer primary key, a text)');
  const insert = withRowsMadeHere(sqlite.prepare('insert into t (a) values (?)'));
  assert.equal(insert.reader, false);
  assert.deepStrictEqual(insert.run(['one']), { changes: 1, lastInsertRowid: 1 });
  const returning = withRowsMadeHere(sqlite.prepare('insert into t (a) values (?) returning id, a'));
  assert.deepStrictEqual(returning.all(['two']), [{ id: 2, a: 'two' }]);
  sqlite.close();
});

test('a LIMIT planned once limits as a bound one does, and refuses what a bound one refuses', () => {
  const sqlite = new SQLite(':memory:');
  sqlite.exec("create table t (k text primary key); insert into t values ('a'), ('b'), ('c')");
  const text = 'select k from t order by k limit ? offset ?';
  assert.equal(limitPlannedOnce(text), 'select k from t order by k limit +? offset ?');
  const { own, madeHere } = bothWays(sqlite, limitPlannedOnce(text));
  const bound = sqlite.prepare(text);
  for (const [limit, offset] of [
    [2, 0],
    [2, 1],
    [0, 0],
    [-1, 1],
    [10, 5],
  ])
    assert.deepStrictEqual(madeHere.all([limit, offset]), bound.all([limit, offset]));
  assert.deepStrictEqual(own.all([1, 0]), [{ k: 'a' }]);
  assert.throws(() => madeHere.all(['two', 0]), /datatype mismatch/);
  assert.throws(() => bound.all(['two', 0]), /datatype mismatch/);
  sqlite.close();
});
