import type { Kysely } from 'kysely';

// The backups' runs and restore checks (issue 42, item 3; backups/backups-service.ts): what the
// admin backups page and /metrics show of them, in every process (the run itself is a job of
// whichever process claimed it). The archives themselves are in the backup target (a folder or
// an S3 bucket); a row names its archive by `name`.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('backup_runs')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    // scheduled or manual (a backup), check (a restore check of an archive).
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    // The archive made or checked.
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    // running, done or failed.
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('started', 'bigint', (c) => c.notNull())
    .addColumn('finished', 'bigint')
    // Progress so far: rows, files and bytes of file contents.
    .addColumn('rows', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('files', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    // The archive's size once stored.
    .addColumn('size', 'bigint')
    // JSON: the rows of each table (a backup's manifest; a check's comparison).
    .addColumn('tables', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('backup_runs_started').on('backup_runs').columns(['kind', 'started']).execute();
}

// Migrations are never run down (storage/migrations/index.ts `migrateTo`).
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('backup_runs').execute();
}
