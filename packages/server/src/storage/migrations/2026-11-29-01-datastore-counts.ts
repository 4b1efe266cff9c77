import { SqliteAdapter, sql, type Kysely } from 'kysely';

// How many items each data store holds, in all (owner '') and per owner: the total of a page
// (datastore/datastore-repo.ts `page`) is read here instead of counted, so that a page of a
// store of a million items costs what it costs in a store of a thousand.
//
// Triggers keep the counts with every write, in the statement that writes: no code path can
// forget them, and a write that fails changes no count. On SQLite row triggers (in-process,
// a few microseconds); on PostgreSQL statement triggers over the statement's rows (one upsert
// for a thousand new items), and a row trigger for an owner's change (PostgreSQL allows no
// transition tables on `update of owner`). Rows are upserted in the order of their owner, ''
// first, so that two transactions lock them in the same order and never wait on each other.
// Each count is split into stripes whose sum is the count: on PostgreSQL each connection adds
// to its own stripe (its backend's pid modulo 16), so concurrent creates do not queue on one
// row's lock until they commit (they did: a third fewer newItem calls per second); SQLite, with
// one writer, adds to stripe 0. A stripe may go below zero; only the sum means anything.
// A restore (backups/backup-archive.ts) writes rows with triggers off: the counts come from the backup.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('datastore_counts')
    .addColumn('store', 'varchar(63)', (c) => c.notNull())
    .addColumn('owner', 'varchar(64)', (c) => c.notNull())
    .addColumn('stripe', 'smallint', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('datastore_counts_pk', ['store', 'owner', 'stripe'])
    .execute();
  await sql`insert into datastore_counts (store, owner, stripe, n)
    select store, '', 0, count(*) from datastore_items group by store
    union all
    select store, owner, 0, count(*) from datastore_items where owner is not null group by store, owner`.execute(db);
  for (const statement of sqlite ? SQLITE_TRIGGERS : POSTGRES_TRIGGERS) await sql.raw(statement).execute(db);
}

/** On SQLite: add `d` to the count of `owner` (an expression) in stripe 0, when it is not null. */
const sqliteAdd = (store: string, owner: string, d: number) =>
  `insert into datastore_counts (store, owner, stripe, n) select ${store}, ${owner}, 0, ${d} where ${owner} is not null
      on conflict (store, owner, stripe) do update set n = n + ${d};`;

const SQLITE_TRIGGERS = [
  `create trigger datastore_items_counted_insert after insert on datastore_items begin
    ${sqliteAdd('new.store', "''", 1)}
    ${sqliteAdd('new.store', 'new.owner', 1)}
  end`,
  `create trigger datastore_items_counted_delete after delete on datastore_items begin
    ${sqliteAdd('old.store', "''", -1)}
    ${sqliteAdd('old.store', 'old.owner', -1)}
  end`,
  `create trigger datastore_items_counted_owner after update of owner on datastore_items
  when old.owner is not new.owner begin
    ${sqliteAdd('old.store', 'old.owner', -1)}
    ${sqliteAdd('new.store', 'new.owner', 1)}
  end`,
];

/** This connection's stripe of a count (above). */
const POSTGRES_STRIPE = 'pg_backend_pid() % 16';

/** `changes`: a statement's rows with +1 (new) or -1 (gone), summed per store and owner. */
const POSTGRES_UPSERT = `insert into datastore_counts (store, owner, stripe, n)
      select store, owner, ${POSTGRES_STRIPE}, sum(d) from (
        select store, '' as owner, d from changes
        union all select store, owner, d from changes where owner is not null
      ) c group by store, owner order by store, owner
    on conflict (store, owner, stripe) do update set n = datastore_counts.n + excluded.n`;

const POSTGRES_TRIGGERS = [
  `create function datastore_items_counted() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      with changes as (select store, owner, 1 as d from new_items) ${POSTGRES_UPSERT};
    else
      with changes as (select store, owner, -1 as d from old_items) ${POSTGRES_UPSERT};
    end if;
    return null;
  end $$`,
  `create trigger datastore_items_counted_insert after insert on datastore_items
    referencing new table as new_items for each statement execute function datastore_items_counted()`,
  `create trigger datastore_items_counted_delete after delete on datastore_items
    referencing old table as old_items for each statement execute function datastore_items_counted()`,
  `create function datastore_items_owner_counted() returns trigger language plpgsql as $$
  begin
    insert into datastore_counts (store, owner, stripe, n)
      select new.store, o, ${POSTGRES_STRIPE}, d from (values (old.owner, -1), (new.owner, 1)) v(o, d)
      where o is not null order by o
      on conflict (store, owner, stripe) do update set n = datastore_counts.n + excluded.n;
    return null;
  end $$`,
  `create trigger datastore_items_counted_owner after update of owner on datastore_items
    for each row when (old.owner is distinct from new.owner) execute function datastore_items_owner_counted()`,
];

export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const trigger of ['insert', 'delete', 'owner'])
    await sql.raw(`drop trigger datastore_items_counted_${trigger}${sqlite ? '' : ' on datastore_items'}`).execute(db);
  if (!sqlite) {
    await sql`drop function datastore_items_counted`.execute(db);
    await sql`drop function datastore_items_owner_counted`.execute(db);
  }
  await db.schema.dropTable('datastore_counts').execute();
}
