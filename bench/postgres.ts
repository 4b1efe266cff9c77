// A PostgreSQL database of its own for a bench server, dropped when the server stops.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onStop } from './server-lifecycle.js';

/**
 * The server the PostgreSQL rows run on: `ROOST_BENCH_DATABASE_URL`, else the tests'
 * `ROOST_TEST_DATABASE_URL`, else the local one the project's tests use. Its own database only
 * serves to create and drop the bench's.
 */
export const adminUrl =
  process.env.ROOST_BENCH_DATABASE_URL ??
  process.env.ROOST_TEST_DATABASE_URL ??
  'postgres://roost_test:roost_test@127.0.0.1:5432/postgres';

/** Can the bench reach PostgreSQL? (The PostgreSQL rows are skipped, with a note, when not.) */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Create `roost_bench_<prefix>_<random>`; returns its name and URL. It is dropped when the
 * process stops (after the cleanups registered later, which close the server's connections).
 */
export async function createBenchDatabase(prefix: string): Promise<{ name: string; url: string }> {
  const name = `roost_bench_${prefix}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const drop = () => adminQuery(`drop database if exists ${name} with (force)`);
  onStop(drop);
  return { name, url: url.toString() };
}
