import {
  sql,
  type CompiledQuery,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type Transaction,
} from 'kysely';
import type { DataStoreItemsTable } from '../storage/datastore-schema.js';
import type { Database } from '../storage/schema.js';
import { executeNow } from '../storage/database.js';
import type { Cache } from '../core/cache.js';
import { LONE_SURROGATE } from '../core/validation.js';

/**
 * The queries of a page of `list` and `keys` (datastore-repo.ts `page`, `keyPage`): what makes
 * a page cost the same in a store of a million items as in one of a thousand.
 *
 * - The total of a store, or of one owner's items, is read from the counts the database keeps
 *   with every write (storage/migrations/2026-11-29-01-datastore-counts.ts), not counted.
 * - A prefix is a range of the (store, key) or (store, owner, key) index, so only the keys that
 *   match are read (and counted).
 * - A page in key order starts from the key at its position (keyset paging under the
 *   protocol's 1-based `start`): remembered, or found once by walking the index (keys only),
 *   shared by every caller that asks at the same time; the page before it remembers where it
 *   ends, so walking on through the pages walks nothing. The marks (`PageMarks`, one per store,
 *   datastore/item-cache.ts) are dropped by every write that adds, removes or gives away items,
 *   in this process at once and in the others when the write's event arrives (PostgreSQL).
 * - Each shape of query is built and compiled once: Kysely takes longer to build one than
 *   SQLite takes to run it.
 */

export interface PageQuery {
  keys?: readonly string[] | undefined;
  /** Keys starting with this text; empty or undefined means any key. */
  prefix?: string | undefined;
  owner?: string | undefined;
  sort: 'key' | 'value' | 'timestamp';
  order: '<' | '>';
  start: number;
  size: number;
}

/**
 * What a store's page memory holds, by a query's filter: the key at a position of its key
 * order (`@<position>`) and, for a prefix, its total (`#`). Positions count from 1.
 */
export type PageMarks = Cache<string | number>;

type Db = Kysely<Database> | Transaction<Database>;
type Row = Selectable<DataStoreItemsTable>;

/** A placeholder in a query compiled once: each call puts its own value in its place. */
class Slot {
  constructor(readonly name: keyof SlotValues) {}
}
interface SlotValues {
  store: string;
  owner: string;
  from: string;
  low: string;
  high: string;
  prefix: string;
  length: number;
  limit: number;
  offset: number;
}
/** A slot where Kysely's types want a text or a number. */
const textSlot = (name: keyof SlotValues) => new Slot(name) as unknown as string;
const numberSlot = (name: keyof SlotValues) => new Slot(name) as unknown as number;

/** `query` with `values` in its slots (field by field, as datastore-repo.ts `withParameters` says why). */
function bind<R>(query: CompiledQuery, values: SlotValues): CompiledQuery<R> {
  return {
    query: query.query,
    queryId: query.queryId,
    sql: query.sql,
    parameters: query.parameters.map((p) => (p instanceof Slot ? values[p.name] : p)),
  } as CompiledQuery<R>;
}

/** The parts of a query that change its SQL; each combination is compiled once. */
interface Shape {
  what: 'items' | 'keys' | 'count';
  owner: boolean;
  /** `range`: the index range of a well-formed prefix; `test`: only the comparison. */
  prefix: 'none' | 'range' | 'test';
  sort: PageQuery['sort'];
  order: PageQuery['order'];
  /** Starts from a remembered key instead of walking an offset. */
  from: boolean;
}

/**
 * The first text after every text that starts with `prefix`, in the byte-wise order of both
 * databases (UTF-8 orders as code points do): the prefix with its last character the next
 * code point (past the surrogates). Null when there is none, or the prefix is not well-formed
 * UTF-16 (the databases would store its lone surrogate as U+FFFD).
 */
export function prefixEnd(prefix: string): string | null {
  if (LONE_SURROGATE.test(prefix)) return null;
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) return points.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return null;
}

/** `q` in the order of `sort`: numbers before text, numbers by size, text byte-wise; ties by key (or id). */
export function sorted<O>(
  q: SelectQueryBuilder<Database, 'datastore_items', O>,
  sort: PageQuery['sort'],
  order: PageQuery['order'],
): SelectQueryBuilder<Database, 'datastore_items', O> {
  const direction = order === '>' ? 'desc' : 'asc';
  if (sort === 'value')
    return q
      .orderBy(sql`(number is null)`, direction)
      .orderBy('number', direction)
      .orderBy('value', direction)
      .orderBy('key', direction);
  if (sort === 'timestamp') return q.orderBy('updated', direction).orderBy('id', direction);
  return q.orderBy('key', direction);
}

export function createPageQueries(root: Kysely<Database>) {
  const compiled = new Map<string, CompiledQuery>();

  function build(shape: Shape): CompiledQuery {
    let q = root.selectFrom('datastore_items').where('store', '=', textSlot('store'));
    if (shape.owner) q = q.where('owner', '=', textSlot('owner'));
    if (shape.prefix !== 'none') {
      // `substr` counts characters on SQLite and PostgreSQL alike, and unlike LIKE no
      // wildcard, case rule or collation changes its meaning; the range lets the index find them.
      if (shape.prefix === 'range') q = q.where('key', '>=', textSlot('low')).where('key', '<', textSlot('high'));
      q = q.where(sql<string>`substr(key, 1, ${numberSlot('length')})`, '=', textSlot('prefix'));
    }
    if (shape.what === 'count') return q.select((eb) => eb.fn.countAll<number>().as('n')).compile();
    if (shape.from) q = q.where('key', shape.order === '>' ? '<=' : '>=', textSlot('from'));
    const rows = sorted(shape.what === 'keys' ? q.select('key') : q.selectAll(), shape.sort, shape.order);
    return rows.limit(numberSlot('limit')).offset(numberSlot('offset')).compile();
  }

  /** The query of `shape` with `values` in its slots. */
  function bound<R>(shape: Shape, values: SlotValues): CompiledQuery<R> {
    const name = `${shape.what} ${shape.owner} ${shape.prefix} ${shape.sort} ${shape.order} ${shape.from}`;
    let query = compiled.get(name);
    if (!query) {
      query = build(shape);
      compiled.set(name, query);
    }
    return bind(query, values);
  }

  /** The store's total (by owner: '' counts every item), as the triggers keep it (in stripes). */
  const storedCount = root
    .selectFrom('datastore_counts')
    .select((eb) => eb.fn.sum<number | string>('n').as('n'))
    .where('store', '=', textSlot('store'))
    .where('owner', '=', textSlot('owner'))
    .compile();

  return {
    /**
     * One page of `query` (items or keys only), and how many match in all. `marks`: the
     * store's page memory, or null (in a transaction, or with no memory kept).
     */
    async page<W extends 'items' | 'keys'>(
      db: Db,
      store: string,
      what: W,
      query: Omit<PageQuery, 'keys'>,
      marks: PageMarks | null,
    ): Promise<{ rows: W extends 'items' ? Row[] : Array<{ key: string }>; total: number }> {
      const prefix = query.prefix ? query.prefix : undefined;
      const high = prefix === undefined ? null : prefixEnd(prefix);
      const filter = `${query.owner ?? ''}\u0000${prefix ?? ''}\u0000${query.order}`;
      const generation = marks?.generation ?? 0;
      const values: SlotValues = {
        store,
        owner: query.owner ?? '',
        from: '',
        low: prefix ?? '',
        high: high ?? '',
        prefix: prefix ?? '',
        length: prefix === undefined ? 0 : [...prefix].length,
        limit: query.size + 1,
        offset: query.start - 1,
      };
      const shape: Shape = {
        what: 'count',
        owner: query.owner !== undefined,
        prefix: prefix === undefined ? 'none' : high === null ? 'test' : 'range',
        sort: query.sort,
        order: query.order,
        from: false,
      };

      /** A mark of this filter: remembered, or loaded once for every caller that misses it at the same time. */
      const remembered = <V extends string | number>(mark: string, load: () => Promise<V>): V | Promise<V> =>
        marks ? (marks.read(`${filter}${mark}`, load) as V | Promise<V>) : load();
      const first = async <R>(query: CompiledQuery<R>) => (await executeNow<R>(db, query)).rows[0];

      const total =
        prefix === undefined
          ? Number((await first<{ n: number | string }>(bind(storedCount, values)))?.n ?? 0)
          : await remembered('#', async () =>
              Number((await first<{ n: number | string }>(bound(shape, values)))?.n ?? 0),
            );
      if (query.size === 0 || query.start > total) return { rows: [], total };

      // In key order the page starts from the key at its position: remembered, or found by
      // walking the index (keys only) once. '' when a write took that position away meanwhile.
      const from =
        query.sort === 'key' && marks && query.start > 1
          ? await remembered(`@${query.start}`, async () => {
              const at = await first<{ key: string }>(bound({ ...shape, what: 'keys' }, { ...values, limit: 1 }));
              return at?.key ?? '';
            })
          : undefined;
      if (from === '') return { rows: [], total };
      if (from !== undefined) {
        values.from = from;
        values.offset = 0;
      }
      const { rows } = await executeNow<Row>(db, bound({ ...shape, what, from: from !== undefined }, values));
      // Where the next page starts (the extra row asked for).
      const next = rows[query.size];
      if (query.sort === 'key' && next) marks?.keep(`${filter}@${query.start + query.size}`, next.key, generation);
      if (rows.length > query.size) rows.length = query.size;
      return { rows: rows as W extends 'items' ? Row[] : Array<{ key: string }>, total };
    },
  };
}

export type PageQueries = ReturnType<typeof createPageQueries>;
