import type { Kysely } from 'kysely';

// Mails leave the request path (mail/mail-queue.ts): each waited in this table until delivered,
// with its attempts and when to try again; 2026-11-30-01-jobs moves them to the job queue.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_queue')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('recipient', 'varchar(320)', (c) => c.notNull())
    .addColumn('mail', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // Null once given up: the row stays for the operator to see.
    .addColumn('next_attempt', 'bigint')
    .addColumn('claimed_until', 'bigint')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('mail_queue_next_attempt').on('mail_queue').column('next_attempt').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mail_queue').execute();
}
