import type { Kysely } from 'kysely';

/**
 * The recent requests the admin logs page shows (storage/request-log-store.ts; docs/operations.md,
 * "Logs"), kept only with `requestLog.keep`. `at` is ISO 8601 in UTC (issue 42, item 8): text that
 * sorts and compares as time on both databases.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('request_logs')
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('route', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('ms', 'real', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('address', 'text')
    .addColumn('code', 'text')
    .execute();
  await db.schema.createIndex('request_logs_at').on('request_logs').column('at').execute();
  await db.schema.createIndex('request_logs_request_id').on('request_logs').column('request_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('request_logs').execute();
}
