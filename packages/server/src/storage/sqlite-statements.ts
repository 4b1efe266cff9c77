import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/*
 * SQLite's statements as Roost runs them (storage/database.ts opens SQLite with these): kept and
 * reused per text, their LIMIT planned once, their rows made in JavaScript.
 */

/**
 * `sql` with each `limit ?` (Kysely writes every LIMIT so) as `limit +?`: the same value to
 * SQLite, but no longer a parameter its planner reads. SQLite (3.53, in better-sqlite3) plans
 * a LIMIT by its bound value and so marks the statement to be planned again whenever that
 * parameter is bound, which a kept statement is on every run: a page query took 9.2 µs instead
 * of 2.6 (bench/RESULTS.md, "Rows made in JavaScript, a LIMIT planned once").
 */
export const limitPlannedOnce = (sql: string): string => sql.replaceAll(' limit ?', ' limit +?');

/**
 * `statement`, reading its rows as arrays and making their objects here. better-sqlite3 makes a
 * row object through V8's C++ API, a property at a time with the column's name looked up anew
 * each time, which costs more than SQLite's reading of the row (bench/RESULTS.md, "Rows made
 * in JavaScript, a LIMIT planned once").
 */
export function withRowsMadeHere(statement: BetterSqlite3.Statement): SqliteStatement {
  // better-sqlite3's statements are Kysely's SqliteStatement; its types say `unknown[]` apart.
  if (!statement.reader) return statement as unknown as SqliteStatement;
  const columns = () => statement.columns().map((column) => column.name);
  let names = columns();
  if (names.length === 1 && !statement.source.includes('*')) {
    // One column named in the statement (a `*` may gain columns): its values alone, no array
    // per row (a page of 50 keys: 13 µs against 27).
    statement.pluck(true);
    return readingBy(statement, rowMaker(names, 'value'));
  }
  let make = rowMaker(names, 'row');
  statement.raw(true);
  return readingBy(statement, (row: unknown[]) => {
    // A schema changed under a kept statement (SQLite prepares it again): its columns anew.
    if (row.length !== names.length) {
      names = columns();
      make = rowMaker(names, 'row');
    }
    return make(row);
  });
}

/** Kysely's statement of a reading `statement`, its rows' objects made by `toObject`. */
function readingBy<R>(
  statement: BetterSqlite3.Statement,
  toObject: (row: R) => Record<string, unknown>,
): SqliteStatement {
  return {
    reader: true,
    all: (parameters) => (statement.all(parameters) as R[]).map(toObject),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const row of statement.iterate(parameters) as IterableIterator<R>) yield toObject(row);
    },
  };
}

type RowMaker = (row: never) => Record<string, unknown>;
const rowMakers = new Map<string, RowMaker>();

/**
 * The function that makes a row's object of its column values (an array, or the one column's
 * value alone), one per list of column names: an object literal of those names. Every
 * statement's rows pass through here, so a loop setting the names one by one makes V8's
 * property stores megamorphic, ten times slower than a literal of its own per list. The names
 * come from SQLite (our statements' columns), each written as a JSON string, which JavaScript
 * reads as the same string whatever it holds.
 */
function rowMaker(names: readonly string[], from: 'row'): (row: unknown[]) => Record<string, unknown>;
function rowMaker(names: readonly string[], from: 'value'): (value: unknown) => Record<string, unknown>;
function rowMaker(names: readonly string[], from: 'row' | 'value'): RowMaker {
  const key = `${from}\u0000${names.join('\u0000')}`;
  let make = rowMakers.get(key);
  if (!make) {
    const fields = names.map((name, i) => `${JSON.stringify(name)}: ${from === 'row' ? `row[${i}]` : 'value'}`);
    make = new Function(from, `return { ${fields.join(', ')} };`) as RowMaker;
    rowMakers.set(key, make);
  }
  return make;
}

/**
 * Kysely's SQLite driver prepares every statement anew, which costs more than running it.
 * Statements are kept by their SQL text (our queries have a bounded set of shapes; the cap
 * guards against an unbounded one). Reuse is safe: a statement runs to its end synchronously.
 */
export function withStatementCache(sqlite: BetterSqlite3.Database, max = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = cache.get(sql);
      if (!statement) {
        if (cache.size >= max) cache.clear();
        statement = withRowsMadeHere(sqlite.prepare(limitPlannedOnce(sql)));
        cache.set(sql, statement);
      }
      return statement;
    },
    close: () => sqlite.close(),
  };
}
