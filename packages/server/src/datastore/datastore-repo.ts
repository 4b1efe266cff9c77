import { sql, type CompiledQuery, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DataStoreItemsTable } from '../storage/datastore-schema.js';
import type { Database } from '../storage/schema.js';
import { executeGrouped, executeNow } from '../storage/database.js';
import { isUniqueViolation } from '../storage/database-errors.js';
import type { Cache } from '../core/cache.js';
import type { UserDirectory } from '../core/user-directory.js';
import { createPageQueries, sorted, type PageMarks, type PageQueries, type PageQuery } from './page-repo.js';

/** An item as the domain sees it: a number value comes back as a number. */
export interface Item {
  id: number;
  key: string;
  value: string | number;
  /** The owner's user id: what permissions compare. */
  owner: string | null;
  /** The owner's user name, as answers show it; null when the account is gone (or unknown). */
  ownerName: string | null;
  /** Milliseconds since the epoch. */
  updated: number;
}

export interface NewItem {
  key: string;
  value: string | number;
  owner: string | null;
}

/** Raised when an insert meets the unique (store, key) index: another call stored the key first. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
}

const toItem = (row: Selectable<DataStoreItemsTable>, ownerName: string | null): Item => ({
  id: row.id,
  key: row.key,
  value: row.number ?? row.value,
  owner: row.owner,
  ownerName,
  updated: row.updated,
});

/** The item showing `name` as its owner's (field by field, as `withParameters` below says why). */
const withName = (item: Item, name: string | null): Item =>
  item.ownerName === name
    ? item
    : { id: item.id, key: item.key, value: item.value, owner: item.owner, ownerName: name, updated: item.updated };

/**
 * A compiled query with other parameters, built field by field: V8 misses its inline cache on
 * the property written after a spread (`{ ...compiled, parameters }`), a trip into its runtime
 * on every call of a hot path.
 */
const withParameters = <R>(compiled: CompiledQuery<R>, parameters: readonly unknown[]): CompiledQuery<R> => ({
  query: compiled.query,
  queryId: compiled.queryId,
  sql: compiled.sql,
  parameters,
});

const valueColumns = (value: string | number) =>
  typeof value === 'number' ? { value: String(value), number: value } : { value, number: null };

/** Rows per INSERT: SQLite binds at most 32 766 values in one statement. */
const INSERT_CHUNK = 1000;

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The items of every data store, in the one table `datastore_items`, each query scoped by store.
 * Owners are kept as user ids (a renamed account keeps its items); answers show names, which the
 * user service's directory gives (core/user-directory.ts): this domain reads no table of another.
 */
export function createDataStoreRepo(
  db: Kysely<Database>,
  store: string,
  users: UserDirectory,
  cache: Cache<Item> | null = null,
  marks: PageMarks | null = null,
) {
  const compiled = compileHotQueries(db);
  const pages = createPageQueries(db);
  const queries = storeQueries(db, store, compiled, pages, { cache, marks, readThrough: true, users });
  /**
   * Run `work` in one transaction: every write in it happens, or none. Inside a transaction
   * reads may see its own uncommitted writes: they never fill the cache. Nor do they show owners'
   * names: the directory's queries would wait for the transaction's end on SQLite's one
   * connection, and what a write reads is compared by owner id.
   */
  const transaction = <T>(work: (queries: StoreQueries) => Promise<T>): Promise<T> =>
    db
      .transaction()
      .execute((trx) =>
        work(storeQueries(trx, store, compiled, pages, { cache, marks, readThrough: false, users: null })),
      );
  return {
    ...queries,
    transaction,
    /**
     * Insert new items, all or none: in one statement when they fit in one (the unique index
     * then refuses the whole statement for one existing key), else in one transaction. Throws
     * DuplicateKeyError when a key exists.
     */
    insertAll(newItems: readonly NewItem[], now: number): Promise<Item[]> {
      return newItems.length <= INSERT_CHUNK
        ? queries.insert(newItems, now)
        : transaction((trx) => trx.insert(newItems, now));
    },
  };
}

/**
 * The queries of the hot paths (getItem and setItem of one key), compiled once: building and
 * compiling a Kysely query takes longer than SQLite takes to run it. Only the parameters
 * change between calls, in the order of the placeholders below.
 */
function compileHotQueries(db: Kysely<Database>) {
  return {
    /** Parameters: store, key. */
    byKey: db.selectFrom('datastore_items').selectAll().where('store', '=', '').where('key', '=', '').compile(),
    /** Parameters: store, key, value, number, owner, updated (the order of the object below). */
    insertOne: db
      .insertInto('datastore_items')
      .values({ store: '', key: '', value: '', number: 0, owner: '', updated: 0 })
      .returning('id')
      .compile(),
    /** Parameters: value, number, updated, store, id. */
    replaceValue: db
      .updateTable('datastore_items')
      .set({ value: '', number: 0, updated: 0 })
      .where('store', '=', '')
      .where('id', '=', 0)
      .compile(),
    /** Parameters: value, number, updated, store, key. */
    replaceByKey: db
      .updateTable('datastore_items')
      .set({ value: '', number: 0, updated: 0 })
      .where('store', '=', '')
      .where('key', '=', '')
      .compile(),
    /** Parameters: value, number, updated, store, key, owner. */
    replaceOwnByKey: db
      .updateTable('datastore_items')
      .set({ value: '', number: 0, updated: 0 })
      .where('store', '=', '')
      .where('key', '=', '')
      .where('owner', '=', '')
      .compile(),
  };
}

type HotQueries = ReturnType<typeof compileHotQueries>;

function storeQueries(
  db: Db,
  store: string,
  compiled: HotQueries,
  pages: PageQueries,
  options: {
    cache: Cache<Item> | null;
    marks: PageMarks | null;
    readThrough: boolean;
    users: UserDirectory | null;
  },
) {
  const items = () => db.selectFrom('datastore_items').selectAll().where('store', '=', store);
  const { cache, marks, users } = options;
  const readCache = options.readThrough ? cache : null;
  const readMarks = options.readThrough ? marks : null;

  /**
   * Runs a write that adds, removes or gives away items: positions of pages move, so the page
   * marks go before it (no page answers from them meanwhile) and after it (a page read while it
   * ran keeps none), as `Cache.around` does.
   */
  const movingPages = <T>(write: () => Promise<T>): Promise<T> =>
    marks ? marks.around(() => marks.forgetAll(), write) : write();

  /** The item with its owner's name (kept in memory by the directory: usually no query). */
  function named(item: Item): Item | Promise<Item> {
    if (item.owner === null || users === null) return item;
    const name = users.nameOf(item.owner);
    return name instanceof Promise ? name.then((n) => withName(item, n)) : withName(item, name);
  }

  /** Rows as items with their owners' names, in one question to the directory. */
  async function namedAll(rows: ReadonlyArray<Selectable<DataStoreItemsTable>>): Promise<Item[]> {
    const owners = rows.flatMap((r) => (r.owner === null ? [] : [r.owner]));
    const names = users && owners.length > 0 ? await users.namesOf(owners) : new Map<string, string>();
    return rows.map((r) => toItem(r, (r.owner && names.get(r.owner)) ?? null));
  }

  /** Insert new items; a key that exists throws DuplicateKeyError. The stored items in input order. */
  async function insertNow(newItems: readonly NewItem[], now: number): Promise<Item[]> {
    if (cache) for (const it of newItems) cache.forget(it.key);
    const stored: Item[] = [];
    try {
      const [one] = newItems;
      if (newItems.length === 1 && one) {
        // One new item, the common call: one compiled statement, on SQLite committed together
        // with the other writes of this turn (an existing key fails this statement only).
        const { value, number } = valueColumns(one.value);
        const { rows } = await executeGrouped<{ id: number }>(
          db,
          withParameters(compiled.insertOne, [store, one.key, value, number, one.owner, now]),
        );
        return [
          { id: rows[0]?.id ?? 0, key: one.key, value: one.value, owner: one.owner, ownerName: null, updated: now },
        ];
      }
      for (let i = 0; i < newItems.length; i += INSERT_CHUNK) {
        const chunk = newItems.slice(i, i + INSERT_CHUNK);
        const rows = await db
          .insertInto('datastore_items')
          .values(chunk.map((it) => ({ store, key: it.key, ...valueColumns(it.value), owner: it.owner, updated: now })))
          .returning(['id', 'key'])
          .execute();
        const ids = new Map(rows.map((r) => [r.key, r.id]));
        for (const it of chunk)
          stored.push({
            id: ids.get(it.key) ?? 0,
            key: it.key,
            value: it.value,
            owner: it.owner,
            ownerName: null,
            updated: now,
          });
      }
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateKeyError('key exists', { cause: err });
      throw err;
    }
    return stored;
  }

  return {
    /** The database handle the queries run on (a transaction's, inside one): after-hooks' jobs are stored with it. */
    handle: db,
    async byKey(key: string): Promise<Item | null> {
      const hit = readCache?.get(key);
      if (hit) return named(hit);
      const started = readCache?.generation ?? 0;
      const { rows } = await executeNow<Selectable<DataStoreItemsTable>>(
        db,
        withParameters(compiled.byKey, [store, key]),
      );
      if (!rows[0]) return null;
      const item = toItem(rows[0], null);
      readCache?.keep(key, item, started);
      return named(item);
    },

    async byKeys(keys: readonly string[]): Promise<Item[]> {
      if (keys.length === 0) return [];
      return namedAll(await items().where('key', 'in', keys).execute());
    },

    async byIds(ids: readonly number[]): Promise<Item[]> {
      if (ids.length === 0) return [];
      return namedAll(await items().where('id', 'in', ids).execute());
    },

    /** Keys of `keys` that exist in this store. */
    async existingKeys(keys: readonly string[]): Promise<string[]> {
      if (keys.length === 0) return [];
      const rows = await db
        .selectFrom('datastore_items')
        .select('key')
        .where('store', '=', store)
        .where('key', 'in', keys)
        .execute();
      return rows.map((r) => r.key);
    },

    /** Insert new items; a key that exists throws DuplicateKeyError. Gives back the stored items in input order. */
    insert(newItems: readonly NewItem[], now: number): Promise<Item[]> {
      return movingPages(() => insertNow(newItems, now));
    },

    async replaceValue(id: number, value: string | number, now: number): Promise<void> {
      cache?.forgetAll();
      const { value: text, number } = valueColumns(value);
      await executeNow(db, withParameters(compiled.replaceValue, [text, number, now, store, id]));
    },

    /**
     * Replace the value of an existing key in one statement, only when `owner` owns it (any
     * owner when null). False when nothing was replaced: no such key, or another owner's.
     */
    async replaceByKey(key: string, value: string | number, now: number, owner: string | null): Promise<boolean> {
      const { value: text, number } = valueColumns(value);
      // For PostgreSQL's combined writes of one row (storage/row-writes.ts): the row, and what
      // decides the outcome, the owner it must have (store names hold no NUL).
      const combine = { row: `${store}\u0000${key}`, kind: owner ?? '' };
      const result =
        owner === null
          ? await executeGrouped(db, withParameters(compiled.replaceByKey, [text, number, now, store, key]), combine)
          : await executeGrouped(
              db,
              withParameters(compiled.replaceOwnByKey, [text, number, now, store, key, owner]),
              combine,
            );
      // Until the commit, reads may still see (and cache) the old value; after it, none may.
      cache?.forget(key);
      return Number(result.numAffectedRows ?? 0) > 0;
    },

    async setOwner(ids: readonly number[], owner: string): Promise<void> {
      if (ids.length === 0) return;
      cache?.forgetAll();
      await movingPages(() =>
        db.updateTable('datastore_items').set({ owner }).where('store', '=', store).where('id', 'in', ids).execute(),
      );
    },

    /**
     * Deletes the items of `ids`; the ids this delete removed. An item another transaction
     * removed meanwhile (read by both, deleted by the first) is not among them, so only one
     * caller reports it and tells its `item.removed` (test/admin/admin-lists.test.ts, parallel deletes).
     */
    async remove(ids: readonly number[]): Promise<number[]> {
      if (ids.length === 0) return [];
      cache?.forgetAll();
      const rows = await movingPages(() =>
        db.deleteFrom('datastore_items').where('store', '=', store).where('id', 'in', ids).returning('id').execute(),
      );
      return rows.map((row) => row.id);
    },

    /** How many items the store holds (as the database keeps it: no rows are counted). */
    async count(): Promise<number> {
      const row = await db
        .selectFrom('datastore_counts')
        .select((eb) => eb.fn.sum<number | string>('n').as('n'))
        .where('store', '=', store)
        .where('owner', '=', '')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** One page of items, and how many match in all. `size` 0 counts only. */
    async page(query: PageQuery): Promise<{ items: Item[]; total: number }> {
      if (query.keys) return keysPage(query.keys, query);
      const { rows, total } = await pages.page(db, store, 'items', query, readMarks);
      return { items: await namedAll(rows), total };
    },

    /** One page of keys only. */
    async keyPage(query: Omit<PageQuery, 'sort' | 'keys'>): Promise<{ keys: string[]; total: number }> {
      const { rows, total } = await pages.page(db, store, 'keys', { ...query, sort: 'key' }, readMarks);
      return { keys: rows.map((r) => r.key), total };
    },
  };

  /**
   * A page of the items of a list of keys (`list` with `key`): at most a page's worth of keys
   * is asked for, so it is counted and read as it is, with the query built for it.
   */
  async function keysPage(keys: readonly string[], query: PageQuery): Promise<{ items: Item[]; total: number }> {
    let q = db.selectFrom('datastore_items').where('store', '=', store).where('key', 'in', keys);
    if (query.prefix) q = q.where(sql<string>`substr(key, 1, ${[...query.prefix].length})`, '=', query.prefix);
    if (query.owner !== undefined) q = q.where('owner', '=', query.owner);
    const counted = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const total = Number(counted.n);
    if (query.size === 0 || query.start > total) return { items: [], total };
    const ordered = sorted(q.selectAll(), query.sort, query.order);
    const rows = await ordered
      .limit(query.size)
      .offset(query.start - 1)
      .execute();
    return { items: await namedAll(rows), total };
  }
}

export type StoreQueries = ReturnType<typeof storeQueries>;
export type DataStoreRepo = ReturnType<typeof createDataStoreRepo>;
