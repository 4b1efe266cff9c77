import { sql, type Kysely, type Selectable } from 'kysely';
import { needsRowLocks } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { FileEntriesTable, FileEntryType } from '../storage/filestore-schema.js';
import type { ListQuery } from './filestore-inputs.js';

/** A file or directory as the service sees it. */
export interface FileEntry {
  id: string;
  path: string;
  parent: string;
  name: string;
  type: FileEntryType;
  size: number;
  mime: string;
  cache: string;
  blobId: string | null;
  hash: string | null;
  owner: string | null;
  ctime: number;
  mtime: number;
}

/** New contents of a file, already in the blob store. */
export interface ContentsChange {
  blobId: string;
  size: number;
  hash: string;
  mime: string;
  mtime: number;
}

/** Raised when an insert or a move hits an existing path. */
export class DuplicatePathError extends Error {
  override readonly name = 'DuplicatePathError';
}

/** Raised when an entry would be made in a directory that no longer exists (a concurrent removal or move). */
export class MissingParentError extends Error {
  override readonly name = 'MissingParentError';
}

const toEntry = (row: Selectable<FileEntriesTable>): FileEntry => ({
  id: row.id,
  path: row.path,
  parent: row.parent,
  name: row.name,
  type: row.type,
  size: Number(row.size),
  mime: row.mime,
  cache: row.cache,
  blobId: row.blob_id,
  hash: row.hash,
  owner: row.owner,
  ctime: Number(row.ctime),
  mtime: Number(row.mtime),
});

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

/** The entries of one file store (rows of `file_entries` with its name). */
export function createFileStoreRepo(db: Kysely<Database>, store: string) {
  const entries = () => db.selectFrom('file_entries').selectAll().where('store', '=', store);
  /** The entry at `path` and everything below it, without LIKE (no wildcards to escape); SQL counts code points. */
  const subtree = (path: string) =>
    sql<boolean>`(${sql.ref('path')} = ${path}
      or substr(${sql.ref('path')}, 1, ${[...path].length + 1}) = ${`${path}/`})`;

  const rowLocks = needsRowLocks(db);
  /**
   * No entry may outlive its parent (issue 18.6): whatever makes an entry in a directory takes
   * a shared lock on that directory's row in its transaction, and whatever removes or moves a
   * directory first locks its row (and the rows below it) for update. On PostgreSQL the one
   * waits for the other: a removal that comes second sees the new entry in its next statement
   * and removes it too; an insert that comes second finds its parent gone. On SQLite the
   * transactions do not interleave at all.
   */
  async function lockDirectory(trx: Kysely<Database>, path: string): Promise<void> {
    if (path === '') return;
    const query = trx.selectFrom('file_entries').select('type').where('store', '=', store).where('path', '=', path);
    const found = await (rowLocks ? query.forShare() : query).executeTakeFirst();
    if (found?.type !== 'd') throw new MissingParentError(path);
  }
  async function lockSubtree(trx: Kysely<Database>, path: string): Promise<void> {
    if (rowLocks)
      await trx
        .selectFrom('file_entries')
        .select('id')
        .where('store', '=', store)
        .where(subtree(path))
        .forUpdate()
        .execute();
  }

  return {
    async get(path: string): Promise<FileEntry | null> {
      const row = await entries().where('path', '=', path).executeTakeFirst();
      return row ? toEntry(row) : null;
    },

    async byId(id: string): Promise<FileEntry | null> {
      const row = await entries().where('id', '=', id).executeTakeFirst();
      return row ? toEntry(row) : null;
    },

    /**
     * Enter `entry` in its directory, which must still exist (else MissingParentError); with
     * `alongside`, run it in the insert's transaction on its handle (after-hooks' jobs: file-hooks.ts).
     */
    async insert(entry: FileEntry, alongside?: (handle: object) => Promise<void>): Promise<void> {
      const values = {
        id: entry.id,
        store,
        path: entry.path,
        parent: entry.parent,
        name: entry.name,
        type: entry.type,
        size: entry.size,
        mime: entry.mime,
        cache: entry.cache,
        blob_id: entry.blobId,
        hash: entry.hash,
        owner: entry.owner,
        ctime: entry.ctime,
        mtime: entry.mtime,
      };
      try {
        if (entry.parent === '' && !alongside) await db.insertInto('file_entries').values(values).execute();
        else {
          await db.transaction().execute(async (trx) => {
            if (entry.parent !== '') await lockDirectory(trx, entry.parent);
            await trx.insertInto('file_entries').values(values).execute();
            await alongside?.(trx);
          });
        }
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicatePathError(entry.path);
        throw err;
      }
    },

    async updateMeta(id: string, changes: { mime?: string; cache?: string; mtime: number }): Promise<void> {
      await db.updateTable('file_entries').set(changes).where('id', '=', id).execute();
    },

    async setOwner(id: string, owner: string): Promise<void> {
      await db.updateTable('file_entries').set({ owner }).where('id', '=', id).execute();
    },

    /**
     * Point the file at new contents, if it still points at `expected` (compare and set: of two
     * concurrent writes each learns which blob it replaced, so none is lost or deleted twice).
     * False when another write came first.
     */
    async replaceContents(id: string, expected: string | null, change: ContentsChange): Promise<boolean> {
      const result = await db
        .updateTable('file_entries')
        .set({ blob_id: change.blobId, size: change.size, hash: change.hash, mime: change.mime, mtime: change.mtime })
        .where('id', '=', id)
        .where((eb) => (expected === null ? eb('blob_id', 'is', null) : eb('blob_id', '=', expected)))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async list(parent: string, query: ListQuery, size: number): Promise<{ entries: FileEntry[]; total: number }> {
      let q = entries().where('parent', '=', parent);
      if (query.type) q = q.where('type', '=', query.type);
      const direction = query.order === '>' ? 'desc' : 'asc';
      let page = q.orderBy(query.sort, direction);
      if (query.sort !== 'name') page = page.orderBy('name', direction);
      const [rows, count] = await Promise.all([
        page
          .limit(size)
          .offset(query.start - 1)
          .execute(),
        q
          .clearSelect()
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { entries: rows.map(toEntry), total: Number(count.n) };
    },

    /** How many files the store holds, and their bytes in all. */
    async usage(): Promise<{ files: number; bytes: number }> {
      const row = await db
        .selectFrom('file_entries')
        .where('store', '=', store)
        .where('type', '=', 'f')
        .select((eb) => [eb.fn.countAll<number>().as('files'), eb.fn.sum<number | string | null>('size').as('bytes')])
        .executeTakeFirstOrThrow();
      return { files: Number(row.files), bytes: Number(row.bytes ?? 0) };
    },

    async hasChildren(path: string): Promise<boolean> {
      const row = await db
        .selectFrom('file_entries')
        .select('id')
        .where('store', '=', store)
        .where('parent', '=', path)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Remove the entry and everything below it in one transaction, `alongside` run in it too; the
     * blobs are the caller's to delete.
     */
    async removeTree(
      path: string,
      alongside?: (handle: object) => Promise<void>,
    ): Promise<{ count: number; blobIds: string[] }> {
      return db.transaction().execute(async (trx) => {
        await lockSubtree(trx, path);
        // A statement of its own after the locks: it sees what was made inside while they were awaited.
        const rows = await trx
          .deleteFrom('file_entries')
          .where('store', '=', store)
          .where(subtree(path))
          .returning('blob_id')
          .execute();
        await alongside?.(trx);
        return { count: rows.length, blobIds: rows.flatMap((r) => (r.blob_id ? [r.blob_id] : [])) };
      });
    },

    /** Move the entry at `from` (and everything below it) to `to`, in one transaction. */
    async moveTree(from: string, to: { path: string; parent: string; name: string }, mtime: number): Promise<void> {
      // SQL counts characters (code points), not UTF-16 units.
      const cut = [...from].length + 1;
      const newPrefix = sql<string>`cast(${to.path} as varchar(1024))`;
      try {
        await db.transaction().execute(async (trx) => {
          await lockSubtree(trx, from);
          await lockDirectory(trx, to.parent);
          await trx
            .updateTable('file_entries')
            .set({
              path: sql<string>`${newPrefix} || substr(${sql.ref('path')}, ${cut})`,
              parent: sql<string>`${newPrefix} || substr(${sql.ref('parent')}, ${cut})`,
            })
            .where('store', '=', store)
            .where(sql<boolean>`substr(${sql.ref('path')}, 1, ${cut}) = ${`${from}/`}`)
            .execute();
          await trx
            .updateTable('file_entries')
            .set({ path: to.path, parent: to.parent, name: to.name, mtime })
            .where('store', '=', store)
            .where('path', '=', from)
            .execute();
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicatePathError(to.path);
        throw err;
      }
    },
  };
}
