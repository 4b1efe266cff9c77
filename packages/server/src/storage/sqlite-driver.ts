import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3 in the version that works on the Node that runs Roost (docs/decisions.md,
 * "Node 20, 22 and 24"). Version 12 wraps its objects in `node::ObjectWrap`, whose destructor on
 * Node 24 aborts the process (`Assertion failed: (env) != nullptr`) when the garbage collector
 * frees a statement outside a JavaScript context: seen here in the test suite, on Node 24.21.
 * Version 13 is built on Node-API and fixes that, but needs Node 22 (on Node 20 it crashes).
 * So both are dependencies: 12 as `better-sqlite3`, 13 as the optional `better-sqlite3-napi`,
 * which npm installs only where its engines allow (the repository's .npmrc sets engine-strict,
 * so Node 20 skips it quietly). The API is the same.
 */
export type SqliteConstructor = typeof BetterSqlite3;

const require = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

function load(): SqliteConstructor {
  if (NODE_MAJOR >= 22) {
    try {
      return require('better-sqlite3-napi') as SqliteConstructor;
    } catch (err) {
      if (NODE_MAJOR >= 24) {
        throw new Error(
          'better-sqlite3 13 (installed as better-sqlite3-napi) is missing or was built for another Node: run npm ' +
            `install again with Node ${process.versions.node}`,
          { cause: err },
        );
      }
    }
  }
  return require('better-sqlite3') as SqliteConstructor;
}

export const SQLite: SqliteConstructor = load();
