import type { Kysely } from 'kysely';

// One durable job queue for all work that runs after an answer (issue 38, item 4;
// storage/job-store.ts, core/job-queue.ts). It takes the place of the mail queue's table
// (2026-11-24-02) and of the webhooks' deliveries (2026-11-26-01): their rows move here, pending,
// failed and (for the webhooks' delivery log) delivered, keeping their ids, attempts and times,
// so nothing queued before the upgrade is lost or sent twice. The old tables are then dropped.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    // The kind's name (`mail`, `webhook`): which handler runs it.
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    // What the job is about, for listing a kind's jobs by it (a webhook's id); may be null.
    .addColumn('subject', 'varchar(128)')
    // An idempotency key: a second job with the same key is not added. Null: no key.
    .addColumn('dedupe_key', 'varchar(255)', (c) => c.unique())
    // The kind's payload as JSON.
    .addColumn('payload', 'text', (c) => c.notNull())
    // pending, done or failed (given up after the kind's last attempt).
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    // When it runs (next); null once done or failed.
    .addColumn('run_at', 'bigint')
    // A worker's lease: nobody else claims it before then.
    .addColumn('claimed_until', 'bigint')
    // The last try's numeric outcome (a webhook receiver's HTTP status), and its error.
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['kind', 'state', 'run_at']).execute();
  await db.schema.createIndex('jobs_subject').on('jobs').columns(['kind', 'subject', 'created']).execute();

  // Mails: a row is a mail not yet delivered (delivered ones were deleted); next_attempt null
  // means given up. The payload is the mail's JSON as it was stored.
  const mails = await db.selectFrom('mail_queue').selectAll().execute();
  await insertJobs(
    db,
    mails.map((r) => ({
      ...common(r),
      kind: 'mail',
      subject: null,
      payload: r.mail,
      state: r.next_attempt === null ? 'failed' : 'pending',
      last_status: null,
      finished_at: null,
    })),
  );
  // Webhook deliveries, delivered ones too (the webhook's delivery log): the payload is the
  // webhook job's (realtime/webhook-delivery.ts `WebhookDelivery`), made in JS so that both
  // databases quote the body alike.
  const deliveries = await db.selectFrom('webhook_deliveries').selectAll().execute();
  await insertJobs(
    db,
    deliveries.map((r) => ({
      ...common(r),
      kind: 'webhook',
      subject: r.webhook_id,
      payload: JSON.stringify({ webhookId: r.webhook_id, kind: r.kind, body: r.payload }),
      state: r.state === 'delivered' ? 'done' : r.state,
      last_status: r.last_status,
      finished_at: r.delivered_at,
    })),
  );
  await db.schema.dropTable('mail_queue').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
}

// `any`: a row of a table of this point in time (see above).
const common = (r: any) => ({
  id: r.id,
  dedupe_key: null,
  attempts: r.attempts,
  created: r.created,
  run_at: r.next_attempt,
  claimed_until: r.claimed_until,
  last_error: r.last_error,
});

async function insertJobs(db: Kysely<any>, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  // 13 columns a row: 500 rows stay below either database's limit of bound parameters.
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('jobs')
      .values(rows.slice(i, i + 500))
      .execute();
}

// Migrations are never run down (storage/migrations/index.ts `migrateTo`); this undoes the
// table only.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('jobs').execute();
}
