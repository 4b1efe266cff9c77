import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrations } from '../../src/storage/migrations/index.js';

/**
 * Kysely applies migrations by their names' order, and a backup's restore checks that its list of
 * migrations is a prefix of this version's (backups/backup-archive.ts): the index must list them
 * in that same order, each name once. Two branches that each add a migration and are merged side
 * by side break this unnoticed otherwise (the eighteenth session's merge did).
 */
test('the migrations are listed in the order of their names, as Kysely runs them', () => {
  const names = Object.keys(migrations);
  assert.deepEqual(names, [...names].sort());
  assert.equal(new Set(names.map((n) => n.slice(0, 13))).size, names.length, 'one migration per date and number');
});
