import type { Kysely } from 'kysely';

// Codes by SMS (users/signin-methods/sms-code/): each account's phone, the confirmed number
// (`phone`, one account's only: unique, and NULLs never collide on either database) and a number
// being added (`pending`, confirmed by a code); the codes sent, one per account and purpose
// (`enrol`, `signin`, `step`), kept as their hash with the number, tries and expiry.
// `Kysely<any>`, as every migration: it describes the schema at its own point in time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sms_phones')
    .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('phone', 'varchar(20)', (c) => c.unique())
    .addColumn('pending', 'varchar(20)')
    .addColumn('confirmed', 'bigint')
    .execute();

  await db.schema
    .createTable('sms_codes')
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('phone', 'varchar(20)', (c) => c.notNull())
    .addColumn('tries', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('sms_codes_pk', ['user_id', 'purpose'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sms_codes').execute();
  await db.schema.dropTable('sms_phones').execute();
}
