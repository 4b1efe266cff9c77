import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from './database.js';

/**
 * A logical copy of every table: rows read in one consistent snapshot and written back in
 * dependency order. The same code runs on SQLite and PostgreSQL, so a backup of one restores
 * into the other. Tables are found in the database itself (every table but the migrator's own
 * and the engine's), never from a list here: a table a later migration adds is included.
 */

// Rows are plain values; a table's columns are whatever its migrations made.
type Row = Record<string, unknown>;
// The snapshot works below the typed schema: tables it has never heard of included.
// biome-ignore lint/suspicious/noExplicitAny: below the typed schema (above)
type AnyDb = Kysely<any>;
/** A transaction below the typed schema, as AnyDb. */
// biome-ignore lint/suspicious/noExplicitAny: below the typed schema (above)
export type AnyTransaction = Transaction<any>;

const INTERNAL = /^(kysely_migration|kysely_migration_lock|sqlite_.*)$/;
const PAGE = 1000;

/** Every table of Roost's schema, parents before the tables that reference them. */
export async function listTables(db: AnyDb, dialect: Dialect): Promise<string[]> {
  // On PostgreSQL, only the schema Roost's queries use (a database may hold others).
  const schema =
    dialect === 'postgres'
      ? (await sql<{ name: string }>`select current_schema() as name`.execute(db)).rows[0]?.name
      : undefined;
  const names = (await db.introspection.getTables())
    .filter((t) => !t.isView && !INTERNAL.test(t.name) && (schema === undefined || t.schema === schema))
    .map((t) => t.name)
    .sort();
  const parents = new Map<string, Set<string>>(names.map((n) => [n, new Set<string>()]));
  for (const [child, parent] of await foreignKeys(db, dialect)) {
    if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child)!.add(parent);
  }
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (ordered.includes(name)) return;
    if (path.has(name)) throw new Error(`tables reference each other in a cycle: ${[...path, name].join(' -> ')}`);
    path.add(name);
    for (const parent of [...parents.get(name)!].sort()) visit(parent, path);
    path.delete(name);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

async function foreignKeys(db: AnyDb, dialect: Dialect): Promise<Array<[child: string, parent: string]>> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ child: string; parent: string }>`
      select distinct tc.table_name as child, ccu.table_name as parent
      from information_schema.table_constraints tc
      join information_schema.constraint_column_usage ccu
        on ccu.constraint_name = tc.constraint_name and ccu.constraint_schema = tc.constraint_schema
      where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()`.execute(db);
    return rows.map((r) => [r.child, r.parent]);
  }
  const { rows } = await sql<{ child: string; parent: string }>`
    select m.name as child, f."table" as parent from sqlite_master m, pragma_foreign_key_list(m.name) f
    where m.type = 'table'`.execute(db);
  return rows.map((r) => [r.child, r.parent]);
}

/**
 * Run `read` in one read-only snapshot of the whole database: REPEATABLE READ on PostgreSQL,
 * a read transaction on SQLite (WAL: writers go on, the snapshot does not see them).
 */
export async function inSnapshot<T>(
  db: AnyDb,
  dialect: Dialect,
  read: (trx: AnyTransaction) => Promise<T>,
): Promise<T> {
  if (dialect === 'postgres') {
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        await sql`set transaction read only`.execute(trx);
        return read(trx);
      });
  }
  return db.transaction().execute(read);
}

/**
 * Every row of `table`, a page at a time, in the engine's physical order (PostgreSQL's `ctid`,
 * SQLite's `rowid`: stable inside a snapshot, and no primary key needs to be known).
 */
export async function* tableRows(trx: AnyTransaction, dialect: Dialect, table: string): AsyncIterable<Row> {
  const position = dialect === 'postgres' ? sql.raw('ctid') : sql.raw('rowid');
  let after: unknown = dialect === 'postgres' ? '(0,0)' : -1;
  for (;;) {
    const bound = dialect === 'postgres' ? sql`${position} > ${after}::tid` : sql`${position} > ${after}`;
    const { rows } = await sql<Row & { roost_position: unknown }>`
      select ${position} as roost_position, t.* from ${sql.table(table)} t
      where ${bound} order by ${position} limit ${PAGE}`.execute(trx);
    for (const { roost_position, ...row } of rows) {
      after = dialect === 'postgres' ? String(roost_position) : roost_position;
      yield row;
    }
    if (rows.length < PAGE) return;
  }
}

/**
 * A row's values as either engine binds them: a JSON object or list (PostgreSQL's `jsonb` reads
 * as one: a collection's `data`) goes as its text, which a SQLite text column keeps and
 * PostgreSQL's `jsonb` parses, so a backup of one restores into the other.
 */
function asParameters(row: Row): Row {
  let out: Row | null = null;
  for (const [column, value] of Object.entries(row)) {
    if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || value instanceof Date) continue;
    out ??= { ...row };
    out[column] = JSON.stringify(value);
  }
  return out ?? row;
}

/** Insert rows into `table`, in batches small enough for either engine's parameter limit. */
export async function insertRows(trx: AnyTransaction, table: string, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!).length || 1;
  const batch = Math.max(1, Math.floor(30_000 / columns));
  for (let i = 0; i < rows.length; i += batch)
    await trx
      .insertInto(table)
      .values(rows.slice(i, i + batch).map(asParameters))
      .execute();
}

/**
 * Run `work` (a restore writing rows as they were) with the tables' triggers off: rows that
 * triggers derive from other rows (the data stores' counts, storage/migrations/
 * 2026-11-29-01-datastore-counts.ts) come from the backup like every other row and must not be
 * derived a second time, as pg_dump's `--disable-triggers` does. PostgreSQL turns a table's own
 * triggers off (Roost owns its tables) and on again, in the transaction; SQLite cannot turn
 * them off, so they are dropped and made again from their own SQL, in the transaction too.
 */
export async function withoutTriggers<T>(
  trx: AnyTransaction,
  dialect: Dialect,
  tables: readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  if (dialect === 'postgres') {
    for (const table of tables) await sql`alter table ${sql.table(table)} disable trigger user`.execute(trx);
    const result = await work();
    for (const table of tables) await sql`alter table ${sql.table(table)} enable trigger user`.execute(trx);
    return result;
  }
  const { rows: triggers } = await sql<{ name: string; sql: string }>`
    select name, sql from sqlite_master where type = 'trigger' order by name`.execute(trx);
  for (const trigger of triggers) await sql`drop trigger ${sql.id(trigger.name)}`.execute(trx);
  const result = await work();
  for (const trigger of triggers) await sql.raw(trigger.sql).execute(trx);
  return result;
}

/** Tables that hold rows (a restore goes into an empty database only). */
export async function nonEmptyTables(db: AnyDb, tables: string[]): Promise<string[]> {
  const full: string[] = [];
  for (const table of tables) {
    const row = await db.selectFrom(table).select(sql`1`.as('one')).limit(1).executeTakeFirst();
    if (row) full.push(table);
  }
  return full;
}

/**
 * After rows came in with their own ids, PostgreSQL's sequences (`bigserial` columns) still
 * start at 1: move each past the largest id. SQLite's AUTOINCREMENT keeps up by itself.
 */
export async function resetSequences(trx: AnyTransaction, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and column_default like 'nextval(%'`.execute(trx);
  for (const { table_name, column_name } of rows) {
    const highest = sql`(select max(${sql.ref(column_name)}) from ${sql.table(table_name)})`;
    const sequence = sql`pg_get_serial_sequence(${table_name}, ${column_name})`;
    await sql`select setval(${sequence}, coalesce(${highest}, 0) + 1, false)`.execute(trx);
  }
}

/** The rows of every table of Roost's schema (`listTables`): what a restore would replace, what a check compares. */
export async function tableCounts(db: AnyDb, dialect: Dialect): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await listTables(db, dialect)) {
    const row = await db.selectFrom(table).select(sql<number | string>`count(*)`.as('n')).executeTakeFirst();
    counts[table] = Number(row?.n ?? 0);
  }
  return counts;
}
