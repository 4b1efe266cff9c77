import { type CompiledQuery, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { type Dialect, executeGrouped, executeNow } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { recordTable } from './collection-fields.js';
import type { RecordRow } from './collection-tables-schema.js';
import { recordTables, type RecordTables } from './record-tables-repo.js';
import { forgetCollection, recordKey, type RecordCache, TouchedRecords } from './record-cache.js';

/**
 * The records of every collection, each collection in its own table (`records_<name>`,
 * collection-fields.ts `recordTable`): the only file of the kind with queries on them. On
 * PostgreSQL the system columns sort by code point (`COLLATE "C"`), as SQLite's do, so that a
 * page's order and its cursors are the same on both (query/).
 */

type RecordDb = Kysely<Record<string, RecordRow>>;

/** A record as the service reads it: `data` parsed. */
export interface StoredRecord {
  id: string;
  owner: string | null;
  created: string;
  updated: string;
  data: Record<string, unknown>;
}

/**
 * A compiled query with other parameters, field by field (a spread with a field after it misses
 * V8's inline cache on a hot path; datastore/datastore-repo.ts says the same of its own).
 */
const withParameters = (compiled: CompiledQuery, parameters: readonly unknown[]): CompiledQuery => ({
  query: compiled.query,
  queryId: compiled.queryId,
  sql: compiled.sql,
  parameters,
});

const parsed = (row: RecordRow): StoredRecord => ({
  id: row.id,
  owner: row.owner,
  created: row.created,
  updated: row.updated,
  data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
});

/**
 * True while the collection is at `version`: a write checked against one version of the schema
 * stores nothing once a migration to another has committed (its caller then checks again,
 * record-ops.ts). On PostgreSQL a write waiting on the migration's lock (`holdWrites`) reads the
 * committed version when it goes on: a statement's snapshot is taken after its locks.
 */
const versionGuard = (collection: string, version: number) =>
  sql<SqlBool>`(SELECT v.version FROM collections AS v WHERE v.name = ${collection}) = ${version}`;

/** The column of a page's row that holds its total (`list`'s `countOf`): no record column is named so. */
const TOTAL = 'roost_total';

/** Ids in lists short enough for one statement's parameters on both databases. */
function* chunks(ids: readonly string[], size = 500): Generator<string[]> {
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += size) yield unique.slice(i, i + size);
}

/**
 * The record of a row read at `generation` (before its statement ran): the one `cache` keeps of its id
 * when that was read from the same text, owner and time, else the row parsed, and kept. A page's 50
 * rows were parsed every time (7 % of the articles' page: bench/RESULTS.md, "Clear of the edge");
 * comparing a text is a fraction of parsing it, and a page then hands out the same objects as gets do
 * (collections-service.ts keeps a get's answer text by them). A row of another text is newer or older
 * than what is kept: it is parsed, and not kept unless nothing was forgotten since it was read.
 */
function readThrough(cache: RecordCache, collection: string, row: RecordRow, generation: number): StoredRecord {
  if (typeof row.data !== 'string') return parsed(row);
  const key = recordKey(collection, row.id);
  const hit = cache.get(key);
  const kept = hit?.record;
  if (kept && hit.text === row.data && kept.updated === row.updated && kept.owner === row.owner) return kept;
  const record = parsed(row);
  cache.keep(key, { record, text: row.data }, generation);
  return record;
}

/** Puts the record `cache` keeps of this id into `out`; whether there was one. */
function keptRecord(cache: RecordCache, collection: string, id: string, out: StoredRecord[]): boolean {
  const hit = cache.get(recordKey(collection, id));
  if (hit) out.push(hit.record);
  return hit !== undefined;
}

/** Is this the database's refusal of a second equal value in a unique index? */
export function isUniqueViolation(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const e = err as Error & { code?: unknown; constraint?: unknown };
  if (e.code === '23505') return typeof e.constraint === 'string' ? e.constraint : '';
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // SQLite names the index's columns, not the index: "UNIQUE constraint failed: index 'x'" or "t.col".
    return /index '([^']+)'/.exec(e.message)?.[1] ?? '';
  }
  return null;
}

export interface RecordsRepo extends RecordTables {
  dropTable(collection: string): Promise<void>;
  insert(collection: string, record: StoredRecord): Promise<void>;
  /**
   * Inserts the record if it passes `where` (a create rule, on the record as it would be stored,
   * alias `r`): one statement, on SQLite committed with the other writes of this event-loop turn
   * (storage/database.ts `executeGrouped`). Only while the collection is at `version`, the one
   * the data was checked against (`versionGuard`). Whether it was inserted; a unique index's
   * refusal throws.
   */
  create(
    collection: string,
    record: StoredRecord,
    json: string,
    where: RawBuilder<SqlBool> | null,
    version: number,
  ): Promise<boolean>;
  /** The record, if it exists and passes `where` (a rule compiled against alias `r`). */
  get(collection: string, id: string, where?: RawBuilder<SqlBool>): Promise<StoredRecord | undefined>;
  /** The records of these ids that pass `where` (a rule compiled against alias `r`), in no order. */
  getMany(collection: string, ids: readonly string[], where?: RawBuilder<SqlBool>): Promise<StoredRecord[]>;
  /** Which of these ids the collection holds, whatever the rules (a write's references). */
  existingIds(collection: string, ids: readonly string[]): Promise<Set<string>>;
  /**
   * Replaces the record's data if it passes `where` and, with `version`, while the collection is
   * at that version (`versionGuard`); whether it did.
   */
  update(
    collection: string,
    id: string,
    change: { data: Record<string, unknown>; updated: string; owner?: string | null },
    where?: RawBuilder<SqlBool>,
    version?: number,
  ): Promise<boolean>;
  /**
   * Holds every write to the collection's records until the caller's transaction ends (a
   * migration: collection-definitions.ts). PostgreSQL's table lock; on SQLite the one
   * connection's transaction does it already.
   */
  holdWrites(collection: string): Promise<void>;
  /** Removes the record if it passes `where`; whether it did. */
  remove(collection: string, id: string, where?: RawBuilder<SqlBool>): Promise<boolean>;
  count(collection: string): Promise<number>;
  /**
   * A page: the records passing every condition, in `order`, at most `limit`; with `countOf`, also
   * how many records pass those conditions (a page's total), in the same statement.
   */
  list(
    collection: string,
    query: {
      where: readonly RawBuilder<SqlBool>[];
      order: readonly RawBuilder<unknown>[];
      limit: number;
      countOf?: readonly RawBuilder<SqlBool>[] | undefined;
    },
  ): Promise<{ records: StoredRecord[]; total: number | null }>;
  /** How many records pass every condition. */
  countWhere(collection: string, where: readonly RawBuilder<SqlBool>[]): Promise<number>;
  /** Records in id order after `after` (all of them, whatever the rules: for migrations). */
  page(collection: string, after: string | null, limit: number): Promise<StoredRecord[]>;
  /** The names of the table's indexes. */
  /** Runs `work` in one transaction, with a repository on it. */
  transaction<T>(work: (repo: RecordsRepo) => Promise<T>): Promise<T>;
  readonly db: RecordDb;
}

/**
 * The repository; with `cache` (SQLite), gets without a rule's condition read through it and
 * every write drops what it touches (record-cache.ts).
 */
export function recordsRepo(db: RecordDb, dialect: Dialect, cache: RecordCache | null = null): RecordsRepo {
  return makeRepo(db, dialect, cache, null);
}

/** `touched`: in a transaction, whose reads never fill the cache (they may see its uncommitted writes). */
function makeRepo(db: RecordDb, dialect: Dialect, cache: RecordCache | null, touched: TouchedRecords | null) {
  const json = (data: Record<string, unknown>) => JSON.stringify(data);
  const table = (collection: string) => sql.table(recordTable(collection));
  const alias = (collection: string) => `${recordTable(collection)} as r` as const;
  const countSelect = (collection: string, where: readonly RawBuilder<SqlBool>[]) => {
    let select = db.selectFrom(alias(collection)).select((eb) => eb.fn.countAll<number>().as('n'));
    for (const condition of where) select = select.where(condition);
    return select;
  };
  const byIds = new Map<string, CompiledQuery>();
  /**
   * `r.id` among `ids`: on PostgreSQL one array parameter, so that the statement has one text
   * whatever the number of ids (a named statement each: storage/database.ts `namedStatement`).
   */
  const idIn = (ids: readonly string[]) =>
    dialect === 'postgres' ? sql<SqlBool>`r.id = any(${ids})` : sql<SqlBool>`r.id in (${sql.join(ids)})`;
  const creates = new Map<string, CompiledQuery>();
  /**
   * A create: the record as a row of its own under `r`, so that a create rule reads it as it reads
   * any record, inserted only where the rule holds. Its parameters are the row's five values,
   * then the version guard's two, in order (`create` binds others to the statement kept per
   * collection).
   */
  const createQuery = (
    collection: string,
    record: StoredRecord,
    json: string,
    where: RawBuilder<SqlBool> | null,
    version: number,
  ): CompiledQuery => {
    const data = dialect === 'postgres' ? sql`CAST(${json} AS jsonb)` : sql`${json}`;
    const { id, owner, created, updated } = record;
    const row = sql`(SELECT ${id} AS id, ${owner} AS owner, ${created} AS created,
      ${updated} AS updated, ${data} AS data)`;
    return db
      .insertInto(recordTable(collection))
      .columns(['id', 'owner', 'created', 'updated', 'data'])
      .expression(
        db
          .selectFrom(row.as('r'))
          .select(['r.id', 'r.owner', 'r.created', 'r.updated', 'r.data'])
          .where(versionGuard(collection, version))
          .where(where ?? sql<SqlBool>`1 = 1`),
      )
      .compile();
  };
  /** At once on SQLite when the connection is free; a named statement on PostgreSQL (storage/database.ts). */
  const run = async (compiled: CompiledQuery) =>
    (await executeNow(db as unknown as Kysely<Database>, compiled as CompiledQuery<RecordRow>)).rows;
  /** Runs a write of one record with it dropped from the cache before and after (core/cache.ts `around`). */
  const changing = <T>(collection: string, id: string, write: () => Promise<T>): Promise<T> => {
    if (touched) {
      touched.touch(collection, id);
      return write();
    }
    return cache ? cache.around(() => cache.forget(recordKey(collection, id)), write) : write();
  };
  const changingAll = async <T>(collection: string, write: () => Promise<T>): Promise<T> => {
    if (touched) touched.touchAll(collection);
    else if (cache) forgetCollection(cache, collection);
    try {
      return await write();
    } finally {
      if (cache && !touched) forgetCollection(cache, collection);
    }
  };
  const repo: RecordsRepo = {
    ...recordTables(db, dialect),
    db,
    async dropTable(collection) {
      await changingAll(collection, () => sql`DROP TABLE IF EXISTS ${table(collection)}`.execute(db));
      creates.delete(collection);
      byIds.delete(collection);
    },
    async insert(collection, record) {
      await changing(collection, record.id, () =>
        db
          .insertInto(recordTable(collection))
          .values({ ...record, data: json(record.data) })
          .execute(),
      );
    },
    async create(collection, record, json, where, version) {
      const { id, owner, created, updated } = record;
      const parameters = [id, owner, created, updated, json, collection, version];
      // Without a rule's condition the statement is the collection's own: compiled once.
      const kept = where ? undefined : creates.get(collection);
      const query = kept ? withParameters(kept, parameters) : createQuery(collection, record, json, where, version);
      if (!where && !kept) creates.set(collection, query);
      const result = await executeGrouped(db as unknown as Kysely<Database>, query);
      return Number(result.numAffectedRows ?? 0) > 0;
    },
    async get(collection, id, where) {
      if (where) {
        const compiled = db.selectFrom(alias(collection)).selectAll().where('r.id', '=', id).where(where).compile();
        const row = (await run(compiled))[0];
        return row && parsed(row);
      }
      const readCache = touched ? null : cache;
      const key = readCache ? recordKey(collection, id) : '';
      const hit = readCache?.get(key);
      if (hit) return hit.record;
      const started = readCache?.generation ?? 0;
      // Without a rule's condition the statement is the collection's own: compiled once.
      let byId = byIds.get(collection);
      if (!byId) {
        byId = db.selectFrom(alias(collection)).selectAll().where('r.id', '=', '').compile();
        byIds.set(collection, byId);
      }
      const row = (await run(withParameters(byId, [id])))[0];
      if (!row) return undefined;
      const record = parsed(row);
      if (readCache && typeof row.data === 'string') readCache.keep(key, { record, text: row.data }, started);
      return record;
    },
    async getMany(collection, ids, where) {
      const out: StoredRecord[] = [];
      // Without a rule's condition, as a get: the records kept in memory, and a statement for the others only
      // (an expansion names the same few records page after page: bench/RESULTS.md, "against Parse Server").
      const readCache = where || touched ? null : cache;
      const missing = readCache ? [...new Set(ids)].filter((id) => !keptRecord(readCache, collection, id, out)) : ids;
      const started = readCache?.generation ?? 0;
      for (const chunk of chunks(missing)) {
        let query = db.selectFrom(alias(collection)).selectAll().where(idIn(chunk));
        if (where) query = query.where(where);
        for (const row of await run(query.compile())) {
          const record = parsed(row);
          out.push(record);
          if (readCache && typeof row.data === 'string')
            readCache.keep(recordKey(collection, row.id), { record, text: row.data }, started);
        }
      }
      return out;
    },
    async existingIds(collection, ids) {
      const out = new Set<string>();
      for (const chunk of chunks(ids)) {
        const rows = await db.selectFrom(alias(collection)).select('r.id').where('r.id', 'in', chunk).execute();
        for (const row of rows) out.add(row.id);
      }
      return out;
    },
    async update(collection, id, change, where, version) {
      const values: Partial<RecordRow> = { data: json(change.data), updated: change.updated };
      if (change.owner !== undefined) values.owner = change.owner;
      let query = db.updateTable(alias(collection)).set(values).where('r.id', '=', id);
      if (where) query = query.where(where);
      if (version !== undefined) query = query.where(versionGuard(collection, version));
      const result = await changing(collection, id, () => query.executeTakeFirst());
      return Number(result.numUpdatedRows) > 0;
    },
    async holdWrites(collection) {
      if (dialect === 'postgres') await sql`LOCK TABLE ${table(collection)} IN EXCLUSIVE MODE`.execute(db);
    },
    async remove(collection, id, where) {
      let query = db.deleteFrom(alias(collection)).where('r.id', '=', id);
      if (where) query = query.where(where);
      const result = await changing(collection, id, () => query.executeTakeFirst());
      return Number(result.numDeletedRows) > 0;
    },
    async count(collection) {
      const row = await db
        .selectFrom(alias(collection))
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async list(collection, query) {
      // As a get: a row read from the text a kept record was read from is that record (`readThrough`).
      const readCache = touched ? null : cache;
      const started = readCache?.generation ?? 0;
      let select = db.selectFrom(alias(collection)).selectAll();
      // The total as a subquery of the page's statement (its own `r`, so the same conditions apply to it): one
      // statement and, on PostgreSQL, one round trip fewer than a count of its own; both databases run it once,
      // by the index a count alone would read (bench/RESULTS.md, "against Parse Server").
      const { countOf } = query;
      if (countOf) select = select.select(sql<number>`(${countSelect(collection, countOf)})`.as(TOTAL));
      for (const condition of query.where) select = select.where(condition);
      // `run`: at once on SQLite when the connection is free, a named statement on PostgreSQL (storage/database.ts).
      const rows = await run(select.orderBy(sql.join(query.order)).limit(query.limit).compile());
      const first = rows[0] as (RecordRow & { [TOTAL]?: unknown }) | undefined;
      // An empty page has no row to carry the total (a cursor past the end): counted alone.
      const total = !countOf
        ? null
        : first
          ? Number(first[TOTAL])
          : Number((await countSelect(collection, countOf).executeTakeFirstOrThrow()).n);
      const records = readCache
        ? rows.map((row) => readThrough(readCache, collection, row, started))
        : rows.map(parsed);
      return { records, total };
    },
    async countWhere(collection, where) {
      return Number((await countSelect(collection, where).executeTakeFirstOrThrow()).n);
    },
    async page(collection, after, limit) {
      let query = db.selectFrom(alias(collection)).selectAll().orderBy('r.id').limit(limit);
      if (after !== null) query = query.where('r.id', '>', after);
      return (await query.execute()).map((row) => parsed(row as RecordRow));
    },
    async transaction(work) {
      if (!cache) return db.transaction().execute((trx) => work(makeRepo(trx, dialect, null, null)));
      const mine = new TouchedRecords(cache);
      try {
        return await db.transaction().execute((trx) => work(makeRepo(trx, dialect, cache, mine)));
      } finally {
        mine.end();
      }
    },
  };
  return repo;
}
