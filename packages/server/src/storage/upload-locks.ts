import type pg from 'pg';
import { postgres } from './database.js';

/**
 * Who writes a resumable (tus) upload now (docs/filestore.md, "Resumable uploads"; used by
 * http/tus-uploads.ts): one request at a time on an upload, in every process of the deployment.
 * `tryLock` never waits: a second request on a held upload is refused (423) so the first goes on
 * whole and the other retries from the offset HEAD tells.
 */
export interface UploadLocks {
  /**
   * Hold upload `id` for one request; null when another request holds it, in this process or
   * another. `lost` is called if the hold ends by itself before its release (the connection that
   * held it in PostgreSQL dropped): the request should stop writing.
   */
  tryLock(id: string, lost: () => void): Promise<(() => Promise<void>) | null>;
  close(): Promise<void>;
}

/** The holds of this process (SQLite: one process owns the database, so these are all of them). */
export function memoryUploadLocks(): UploadLocks {
  const held = new Set<string>();
  return {
    async tryLock(id) {
      if (held.has(id)) return null;
      held.add(id);
      let released = false;
      return async () => {
        if (!released) held.delete(id);
        released = true;
      };
    },
    async close() {},
  };
}

/**
 * The holds across processes on one PostgreSQL database: a session advisory lock per upload
 * (`pg_try_advisory_lock`, keyed by a 64-bit hash of the upload's id) on one connection of this
 * process's own to the direct URL (storage/pg-connections.ts: a transaction pooler would hand the
 * session to others). A process that dies holding uploads (SIGKILL, a lost machine) loses them
 * with its connection: nothing stays held. The holds of this process are kept beside, since a
 * session may take its own advisory lock twice. The connection is opened on the first upload and
 * opened again after it dropped; while it is down no upload can be held (503 of the library's
 * error path: retried by the client).
 */
export function postgresUploadLocks(directUrl: string, onError: (err: Error) => void): UploadLocks {
  const local = memoryUploadLocks();
  /** The releases' `lost` callbacks of the holds on the current connection. */
  const holders = new Map<string, () => void>();
  let client: Promise<pg.Client> | null = null;
  let closed = false;

  function open(): Promise<pg.Client> {
    const next = new (postgres().Client)({ connectionString: directUrl });
    let down = false;
    const dropped = (err: Error) => {
      if (down || closed) return;
      down = true;
      onError(err);
      if (client === opened) client = null;
      // The server released every lock of the session: each holder is told to stop.
      for (const lost of holders.values()) lost();
      holders.clear();
      void next.end().catch(() => {});
    };
    next.on('error', dropped);
    next.on('end', () => dropped(new Error('the connection of the upload locks ended')));
    const opened = next.connect().then(() => next);
    opened.catch(() => {
      if (client === opened) client = null;
    });
    return opened;
  }
  const connection = () => {
    client ??= open();
    return client;
  };
  const key = (id: string) => `roost.upload:${id}`;

  return {
    async tryLock(id, lost) {
      const releaseLocal = await local.tryLock(id, lost);
      if (!releaseLocal) return null;
      try {
        const session = await connection();
        const { rows } = await session.query<{ held: boolean }>(
          'select pg_try_advisory_lock(hashtextextended($1, 0)) as held',
          [key(id)],
        );
        if (!rows[0]?.held) {
          await releaseLocal();
          return null;
        }
        holders.set(id, lost);
        return async () => {
          if (holders.delete(id))
            await session
              .query('select pg_advisory_unlock(hashtextextended($1, 0))', [key(id)])
              .catch((err: Error) => onError(err));
          await releaseLocal();
        };
      } catch (err) {
        await releaseLocal();
        throw err;
      }
    },
    async close() {
      closed = true;
      const open = client;
      client = null;
      await open?.then((c) => c.end()).catch(() => {});
    },
  };
}
