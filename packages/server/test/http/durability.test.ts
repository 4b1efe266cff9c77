import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startServer } from '../helpers/test-server.js';

/**
 * What docs/security.md ("Durability") promises for an acknowledged write, as the database runs
 * it: by default a commit is synced before it is answered (SQLite `synchronous=FULL` in WAL
 * mode; PostgreSQL's `synchronous_commit` on, its default); `durability: "fast"` trades that for
 * speed on SQLite. Local blobs are flushed and their directory synced after the rename
 * (storage/local-blob-store.ts); security/crash-safety.test.ts shows the rest with SIGKILL.
 */
const onPostgres = process.env.ROOST_TEST_DIALECT === 'postgres';

describe('durability settings in force', () => {
  test('by default every commit is synced before the answer', async () => {
    const s = await startServer();
    try {
      if (onPostgres) {
        const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(s.roost.db);
        assert.equal(rows[0]?.synchronous_commit, 'on');
      } else {
        const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(s.roost.db);
        assert.equal(rows[0]?.synchronous, 2, 'FULL');
      }
      // Files written under the default still read back whole (the synced path works end to end).
      const token = await s.createUser('durable');
      assert.equal(
        (await s.request('/files/api/@newItem', { name: 'kept.txt', type: 'f', contents: 'kept' }, { token })).status,
        200,
      );
      assert.equal(
        await (await fetch(`${s.url}/files/kept.txt`, { headers: { 'x-auth-token': token } })).text(),
        'kept',
      );
    } finally {
      await s.close();
    }
  });

  test('durability "fast" relaxes SQLite to synchronous=NORMAL', {
    skip: onPostgres ? 'SQLite only: PostgreSQL keeps its own setting' : false,
  }, async () => {
    const s = await startServer({ durability: 'fast' });
    try {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(s.roost.db);
      assert.equal(rows[0]?.synchronous, 1, 'NORMAL');
    } finally {
      await s.close();
    }
  });
});
