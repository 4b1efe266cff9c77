import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { sql } from 'kysely';
import type { Roost } from '../../../src/roost.js';
import type { BlobStore } from '../../../src/storage/blob-store.js';
import { openBlobStore } from '../../../src/storage/blob-stores.js';

/**
 * Everything Roost has stored, as one comparable value: every row of every table (found by
 * introspection, so a table added later is covered without touching this file), the files
 * under the data directory's `blobs` (their names: blobs are immutable), the objects of an S3
 * blob store, and the outbox mails.
 * Two equal snapshots mean a request stored, changed and deleted nothing.
 */
export interface StoreSnapshot {
  tables: Record<string, Record<string, unknown>[]>;
  files: string[];
}

/** Columns left out of a comparison, per table. */
export type IgnoredColumns = Readonly<Record<string, readonly string[]>>;

/**
 * A failed sign-in (401) counts against the account and its client address
 * (users/signin-throttle.ts): the counters are state a refusal is meant to change. Comparisons
 * around sign-in attempts leave these out.
 */
export const SIGNIN_COUNTERS: IgnoredColumns = {
  users: ['failed_signins', 'locked_until', 'lockouts'],
  throttle_counts: ['count', 'window_start'],
};

/** Table names per server: introspection is a handful of catalog queries, and tables come only with a migration. */
const tableNames = new WeakMap<Roost, Promise<string[]>>();

export async function snapshot(roost: Roost): Promise<StoreSnapshot> {
  // Mails of earlier requests are delivered first: a delivery is not the next request's doing.
  await roost.mailQueue.idle();
  const tables: StoreSnapshot['tables'] = {};
  let names = tableNames.get(roost);
  if (!names) {
    names = roost.db.introspection
      .getTables()
      .then((list) => list.map((t) => t.name).filter((n) => !n.startsWith('kysely_')));
    tableNames.set(roost, names);
  }
  if (roost.config.databaseUrl) {
    // PostgreSQL: every table in one statement, its rows as JSON (json_agg), one round trip where one a table
    // took most of a snapshot's time; equal rows give equal JSON, which is all a comparison needs.
    const each = (await names).map(
      (name) => sql`select ${name} as name, (select coalesce(json_agg(t), '[]') from ${sql.table(name)} t) as rows`,
    );
    const all = await sql<{
      name: string;
      rows: Record<string, unknown>[];
    }>`${sql.join(each, sql` union all `)}`.execute(roost.db);
    for (const { name, rows } of all.rows) tables[name] = rows;
  } else {
    // SQLite answers in this process, one table after another.
    for (const name of await names)
      tables[name] = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(roost.db)).rows;
  }
  // The runs of scheduled jobs (extend/jobs.ts, kinds `schedule:<name>`: the upkeep every quarter
  // hour, upkeep-jobs.ts) come with the clock, not with a request: a tick between two snapshots is
  // no request's doing.
  if (tables.jobs) tables.jobs = tables.jobs.filter((job) => !String(job.kind).startsWith('schedule:'));
  const files = [
    ...(await filesUnder(join(roost.config.dataDir, 'blobs'))),
    ...(await filesUnder(roost.outboxDir)),
  ].map((f) => relative(roost.config.dataDir, f));
  files.push(...(await s3Blobs(roost)));
  return { tables, files: files.sort() };
}

/** An S3 blob store per server for listing, made once (an S3 client is costly to make) and closed with the server. */
const s3Listers = new WeakMap<Roost, Array<BlobStore & { close(): void }>>();

function s3StoresOf(roost: Roost): Array<BlobStore & { close(): void }> {
  let stores = s3Listers.get(roost);
  if (stores) return stores;
  const seen = new Set<string>();
  stores = [];
  for (const store of Object.values(roost.config.fileStores)) {
    const options = store.blobs ?? roost.config.blobs;
    const key = JSON.stringify(options);
    if (options.kind !== 's3' || seen.has(key)) continue;
    seen.add(key);
    stores.push(openBlobStore(options, roost.config.dataDir));
  }
  s3Listers.set(roost, stores);
  if (stores.length > 0) {
    const close = roost.close.bind(roost);
    const opened = stores;
    roost.close = async () => {
      for (const blobs of opened) blobs.close();
      await close();
    };
  }
  return stores;
}

/**
 * The objects of file stores whose contents live on S3 (the PostgreSQL pass of `npm test`), as
 * the blob store lists them; local blobs are the files above already.
 */
async function s3Blobs(roost: Roost): Promise<string[]> {
  const out: string[] = [];
  for (const blobs of s3StoresOf(roost)) for await (const blob of blobs.list()) out.push(`s3:${blob.id}`);
  return out;
}

async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true, recursive: true });
    return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

function rowsOf(snap: StoreSnapshot, table: string, ignore: IgnoredColumns): string[] {
  const skip = new Set(ignore[table] ?? []);
  return (snap.tables[table] ?? [])
    .map((row) =>
      JSON.stringify(
        Object.keys(row)
          .filter((c) => !skip.has(c))
          .sort()
          .map((c) => [c, row[c]]),
      ),
    )
    .sort();
}

/** What differs between two snapshots, one line per table or the files; empty when equal. */
export function snapshotDiff(before: StoreSnapshot, after: StoreSnapshot, ignore: IgnoredColumns = {}): string[] {
  const out: string[] = [];
  for (const table of new Set([...Object.keys(before.tables), ...Object.keys(after.tables)])) {
    const a = rowsOf(before, table, ignore);
    const b = rowsOf(after, table, ignore);
    const gone = a.filter((r) => !b.includes(r));
    const added = b.filter((r) => !a.includes(r));
    if (gone.length || added.length)
      out.push(`${table}: -${gone.join(' ').slice(0, 400)} +${added.join(' ').slice(0, 400)}`);
  }
  const goneFiles = before.files.filter((f) => !after.files.includes(f));
  const addedFiles = after.files.filter((f) => !before.files.includes(f));
  if (goneFiles.length || addedFiles.length) out.push(`files: -${goneFiles.join(',')} +${addedFiles.join(',')}`);
  return out;
}
