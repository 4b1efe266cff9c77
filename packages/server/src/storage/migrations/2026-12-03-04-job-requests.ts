import type { Kysely } from 'kysely';

/**
 * The request that caused a job (core/jobs.ts `Job.requestId`): a webhook delivery of a
 * request's write, an after-hook's job, a job a request enqueued. The admin logs page finds a
 * request's jobs by it (docs/operations.md, "Logs"); null for the jobs no request caused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('request_id', 'text').execute();
  await db.schema.createIndex('jobs_request_id').on('jobs').column('request_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_request_id').execute();
  await db.schema.alterTable('jobs').dropColumn('request_id').execute();
}
