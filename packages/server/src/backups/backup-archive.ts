import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { sql, type Kysely, type Migration } from 'kysely';
import type { Config } from '../core/config.js';
import { openBlobStores, type BlobStores } from '../storage/blob-stores.js';
import type { Dialect } from '../storage/database.js';
import { connectDatabase } from '../storage/database-errors.js';
import { withDirectDatabase } from '../storage/database.js';
import { makeRecordTables } from '../collections/index.js';
import { migrateTo, migrateToLatest, migrations as allMigrations } from '../storage/migrations/index.js';
import {
  inSnapshot,
  insertRows,
  listTables,
  nonEmptyTables,
  resetSequences,
  withoutTriggers,
  tableRows,
  type AnyTransaction,
} from '../storage/snapshot.js';
import { isArchiveName, packDirectory, unpackArchive } from './tar.js';

/**
 * `roost backup` and `roost restore`: a logical, consistent copy of the database (every table,
 * as JSON lines, read in one snapshot) and of every file's contents, into a directory or one
 * tar file. Portable between SQLite and PostgreSQL and between blob stores: a backup of a
 * SQLite server with files on disk restores into PostgreSQL with files on S3.
 *
 * Layout: `manifest.json` (written last: a backup without it is incomplete),
 * `tables/<table>.jsonl`, `blobs/<blob id>`.
 */

const FORMAT = 'roost-backup';
const VERSION = 1;
/** Sign-in state a restore leaves out unless asked: restoring must not revive revoked tokens. */
const CREDENTIAL_TABLES = ['sessions', 'user_tokens'];
const ATTEMPTS = 3;

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  created: string;
  dialect: Dialect;
  migrations: string[];
  tables: Array<{ name: string; rows: number }>;
  blobs: { count: number; bytes: number };
}

export interface SnapshotOptions {
  /** The migrations this code knows (tests add one to show a new table is included). */
  migrations?: Readonly<Record<string, Migration>>;
  /** Told as rows and files go by (the CLI draws it on a terminal: cli/progress.ts). */
  onProgress?: (progress: Progress) => void;
}

/** How far a backup or restore has come: rows of every table, files and their bytes so far. */
export interface Progress {
  rows: number;
  files: number;
  bytes: number;
}

/** A file's contents vanished between the snapshot and the copy (a concurrent write replaced it). */
class BlobGoneError extends Error {}

// JSON has no bytes: a binary value is written as { "$base64": "..." }.
const encode = (row: Record<string, unknown>) =>
  JSON.stringify(row, (_key, value: unknown) => {
    if (
      value &&
      typeof value === 'object' &&
      (value as { type?: string }).type === 'Buffer' &&
      Array.isArray((value as { data?: unknown }).data)
    ) {
      return { $base64: Buffer.from((value as { data: number[] }).data).toString('base64') };
    }
    if (typeof value === 'bigint') return Number(value);
    return value;
  });
const decode = (line: string) =>
  JSON.parse(line, (_key, value: unknown) =>
    value && typeof value === 'object' && typeof (value as { $base64?: unknown }).$base64 === 'string'
      ? Buffer.from((value as { $base64: string }).$base64, 'base64')
      : value,
  ) as Record<string, unknown>;

export async function backup(config: Config, target: string, options: SnapshotOptions = {}): Promise<Manifest> {
  const path = resolve(target);
  const archive = isArchiveName(path);
  if (existsSync(path) && (archive || (await readdir(path)).length > 0))
    throw new Error(`${target} exists; a backup goes to a new file or an empty directory`);
  const work = archive ? `${path}.partial-${randomUUID().slice(0, 8)}` : path;
  const { db, dialect } = await connectDatabase(config);
  const blobs = openBlobStores(config);
  try {
    await withDirectDatabase(db, config, (direct) => migrateToLatest(direct as Kysely<unknown>, options.migrations));
    for (let attempt = 1; ; attempt++) {
      await rm(work, { recursive: true, force: true });
      await mkdir(join(work, 'tables'), { recursive: true });
      await mkdir(join(work, 'blobs'));
      try {
        const manifest = await inSnapshot(db, dialect, (trx) =>
          writeSnapshot(trx, dialect, blobs, work, options.onProgress ?? (() => {})),
        );
        await writeFile(join(work, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
        if (archive) await packDirectory(work, path);
        return manifest;
      } catch (err) {
        if (!(err instanceof BlobGoneError) || attempt >= ATTEMPTS) throw err;
      }
    }
  } catch (err) {
    if (archive || !existsSync(join(work, 'manifest.json'))) await rm(work, { recursive: true, force: true });
    throw err;
  } finally {
    if (archive) await rm(work, { recursive: true, force: true });
    blobs.close();
    await db.destroy();
  }
}

async function writeSnapshot(
  trx: AnyTransaction,
  dialect: Dialect,
  blobs: BlobStores,
  dir: string,
  onProgress: (progress: Progress) => void,
): Promise<Manifest> {
  const progress: Progress = { rows: 0, files: 0, bytes: 0 };
  const migrations = (
    await sql<{ name: string }>`select name from kysely_migration order by name`.execute(trx)
  ).rows.map((r) => r.name);
  const tables: Manifest['tables'] = [];
  const files: Array<{ store: string; blobId: string; hash: string | null }> = [];
  for (const table of await listTables(trx, dialect)) {
    const out = createWriteStream(join(dir, 'tables', `${table}.jsonl`));
    let rows = 0;
    for await (const row of tableRows(trx, dialect, table)) {
      if (!out.write(`${encode(row)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
      rows++;
      progress.rows++;
      onProgress(progress);
      if (table === 'file_entries' && typeof row.blob_id === 'string')
        files.push({ store: String(row.store), blobId: row.blob_id, hash: (row.hash as string | null) ?? null });
    }
    await new Promise<void>((r, j) => out.end((err?: Error | null) => (err ? j(err) : r())));
    tables.push({ name: table, rows });
  }
  let bytes = 0;
  for (const file of files) {
    let source: Awaited<ReturnType<ReturnType<BlobStores['forStore']>['get']>>;
    try {
      source = await blobs.forStore(file.store).get(file.blobId);
    } catch (err) {
      if (/no file store/.test((err as Error).message))
        throw new Error(`files of the store "${file.store}" are in the database, but no such file store is configured`);
      throw new BlobGoneError(`contents ${file.blobId} of store ${file.store} are gone`, { cause: err });
    }
    const hash = createHash('sha256');
    await pipeline(
      source,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          bytes += chunk.length;
          progress.bytes += chunk.length;
          onProgress(progress);
          yield chunk;
        }
      },
      createWriteStream(join(dir, 'blobs', file.blobId)),
    );
    if (file.hash !== null && hash.digest('base64url') !== file.hash)
      throw new BlobGoneError(`contents ${file.blobId} changed while copied`);
    progress.files++;
    onProgress(progress);
  }
  return {
    format: FORMAT,
    version: VERSION,
    created: new Date().toISOString(),
    dialect,
    migrations,
    tables,
    blobs: { count: files.length, bytes },
  };
}

export interface RestoreOptions extends SnapshotOptions {
  /** Restore sessions and single-use tokens too (by default everybody signs in again). */
  keepSessions?: boolean;
}

export interface RestoreSummary {
  tables: Array<{ name: string; rows: number }>;
  blobs: number;
  /** Bytes of file contents restored. */
  bytes: number;
  skipped: string[];
  /** What the backup says it holds (a restore check compares the restored rows with it). */
  manifest: Manifest;
}

export async function restore(config: Config, source: string, options: RestoreOptions = {}): Promise<RestoreSummary> {
  const path = resolve(source);
  if (!existsSync(path)) throw new Error(`${source} does not exist`);
  const archive = isArchiveName(path);
  const dir = archive ? join(dirname(path), `.roost-restore-${randomUUID().slice(0, 8)}`) : path;
  try {
    if (archive) await unpackArchive(path, dir);
    return await restoreDirectory(config, dir, options);
  } finally {
    if (archive) await rm(dir, { recursive: true, force: true });
  }
}

async function restoreDirectory(config: Config, dir: string, options: RestoreOptions): Promise<RestoreSummary> {
  const manifestFile = join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Error('no manifest.json: not a Roost backup, or an incomplete one');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Manifest;
  } catch (err) {
    throw new Error(`${manifestFile} is damaged (${(err as Error).message}): the backup cannot be read`, {
      cause: err,
    });
  }
  if (manifest.format !== FORMAT || manifest.version !== VERSION)
    throw new Error(`not a Roost backup of version ${VERSION}`);
  const known = Object.keys(options.migrations ?? allMigrations);
  const last = manifest.migrations.at(-1);
  if (manifest.migrations.some((name, i) => known[i] !== name))
    throw new Error(
      "the backup was made by a newer or different Roost (its migrations are not a prefix of this version's)",
    );

  const { db, dialect } = await connectDatabase(config);
  const blobs = openBlobStores(config);
  const uploaded: Array<{ store: string; id: string }> = [];
  const progress: Progress = { rows: 0, files: 0, bytes: 0 };
  const onProgress = options.onProgress ?? (() => {});
  try {
    const existing = await listTables(db, dialect);
    const full = await nonEmptyTables(db, existing);
    if (full.length > 0)
      throw new Error(`the database is not empty (${full.join(', ')} hold rows); restore into a new one`);
    // The schema the rows were read from; later migrations run on them afterwards.
    // Migrations on the direct URL: Kysely's migrator holds a session lock (docs/scaling.md, "Behind PgBouncer").
    if (last !== undefined)
      await withDirectDatabase(db, config, (direct) => migrateTo(direct as Kysely<unknown>, last, options.migrations));
    // Tables no migration makes: each collection's records (collections/records-repo.ts).
    await makeRecordTables(
      db as Kysely<unknown>,
      dialect,
      manifest.tables.map((t) => t.name),
    );
    const order = await listTables(db, dialect);
    const missing = manifest.tables.map((t) => t.name).filter((t) => !order.includes(t));
    if (missing.length > 0) throw new Error(`the backup has tables this schema does not: ${missing.join(', ')}`);
    const skipped = options.keepSessions ? [] : CREDENTIAL_TABLES.filter((t) => order.includes(t));

    // File contents first, each under a new id of the target's blob store; the rows then point at them.
    const blobIds = new Map<string, string>();
    for await (const row of readRows(dir, 'file_entries', manifest)) {
      if (typeof row.blob_id !== 'string') continue;
      const store = String(row.store);
      if (!config.fileStores[store])
        throw new Error(`the backup has files of the store "${store}", which is not configured`);
      const stored = await blobs
        .forStore(store)
        .put(createReadStream(join(dir, 'blobs', row.blob_id)), { maxBytes: Number.MAX_SAFE_INTEGER });
      uploaded.push({ store, id: stored.id });
      progress.files++;
      progress.bytes += stored.size;
      onProgress(progress);
      if (row.hash !== null && stored.hash !== row.hash)
        throw new Error(`contents ${row.blob_id} do not match their hash: the backup is damaged`);
      blobIds.set(row.blob_id, stored.id);
    }

    const restored: RestoreSummary['tables'] = [];
    await db.transaction().execute(async (trx) => {
      await withoutTriggers(trx, dialect, order, async () => {
        for (const table of order) {
          if (!manifest.tables.some((t) => t.name === table) || skipped.includes(table)) continue;
          let rows = 0;
          let batch: Array<Record<string, unknown>> = [];
          for await (const row of readRows(dir, table, manifest)) {
            if (table === 'file_entries' && typeof row.blob_id === 'string') row.blob_id = blobIds.get(row.blob_id);
            batch.push(row);
            rows++;
            if (batch.length >= 1000) {
              await insertRows(trx, table, batch);
              progress.rows += batch.length;
              onProgress(progress);
              batch = [];
            }
          }
          await insertRows(trx, table, batch);
          progress.rows += batch.length;
          onProgress(progress);
          restored.push({ name: table, rows });
        }
      });
      await resetSequences(trx, dialect);
    });
    await withDirectDatabase(db, config, (direct) => migrateToLatest(direct as Kysely<unknown>, options.migrations));
    return { tables: restored, blobs: uploaded.length, bytes: progress.bytes, skipped, manifest };
  } catch (err) {
    // Nothing of a failed restore stays: the rows were one transaction; the contents go too.
    for (const { store, id } of uploaded)
      await blobs
        .forStore(store)
        .delete(id)
        .catch(() => {});
    throw err;
  } finally {
    blobs.close();
    await db.destroy();
  }
}

async function* readRows(dir: string, table: string, manifest: Manifest): AsyncIterable<Record<string, unknown>> {
  if (!manifest.tables.some((t) => t.name === table)) return;
  const lines = createInterface({
    input: createReadStream(join(dir, 'tables', `${table}.jsonl`)),
    crlfDelay: Infinity,
  });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (line.trim() === '') continue;
    let row: Record<string, unknown>;
    try {
      row = decode(line);
    } catch (err) {
      throw new Error(
        `tables/${table}.jsonl line ${number} is damaged (${(err as Error).message}): the backup cannot be restored`,
        { cause: err },
      );
    }
    yield row;
  }
}
