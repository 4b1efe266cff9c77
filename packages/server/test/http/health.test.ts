import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { postgresAdminUrl, startServer } from '../helpers/test-server.js';

/** `/health` and `/ready` (http/routes/health-routes.ts, docs/operations.md). */
const onPostgres = process.env.ROOST_TEST_DIALECT === 'postgres';
const onS3 = process.env.ROOST_TEST_BLOBS === 's3';

describe('health and readiness', () => {
  test('/health and /ready answer 200 on a running Roost, GET and HEAD, not cached, no token needed', async () => {
    const s = await startServer();
    try {
      for (const path of ['/health', '/ready']) {
        const res = await fetch(s.url + path);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.deepEqual(await res.json(), { result: true, status: path === '/health' ? 'ok' : 'ready' });
        assert.equal((await fetch(s.url + path, { method: 'HEAD' })).status, 200);
      }
    } finally {
      await s.close();
    }
  });

  test('with the database gone, /ready answers 503 not_ready naming it while /health still answers', async () => {
    const s = await startServer();
    try {
      if (onPostgres) {
        // Stop the database for this server for real: drop it, cutting its connections.
        const name = new URL(s.roost.config.databaseUrl!).pathname.slice(1);
        const admin = new pg.Client({ connectionString: postgresAdminUrl() });
        await admin.connect();
        await admin.query(`drop database ${name} with (force)`);
        await admin.end();
      } else {
        await s.roost.db.destroy();
      }
      const res = await fetch(`${s.url}/ready`);
      assert.equal(res.status, 503);
      const body = (await res.json()) as { result: boolean; code: string; message: string; problems: string[] };
      assert.deepEqual([body.result, body.code], [false, 'not_ready']);
      assert.deepEqual(body.problems, ['the database cannot be reached']);
      assert.match(body.message, /database/);
      assert.equal((await fetch(`${s.url}/health`)).status, 200);
    } finally {
      await s.close().catch(() => {});
    }
  });

  test('with the blob directory gone, /ready answers 503 naming the blob store', {
    skip: onS3 ? 'local blobs only (this pass keeps them on S3)' : false,
  }, async () => {
    const s = await startServer();
    try {
      await rm(join(s.roost.config.dataDir, 'blobs'), { recursive: true, force: true });
      const res = await fetch(`${s.url}/ready`);
      assert.equal(res.status, 503);
      assert.deepEqual(((await res.json()) as { problems: string[] }).problems, ['a blob store cannot be reached']);
    } finally {
      await s.close();
    }
  });
});
