import type { Kysely } from 'kysely';

// Migrations take `Kysely<any>`: they describe the schema at their own point in time.
export async function up(_db: Kysely<any>): Promise<void> {}

export async function down(_db: Kysely<any>): Promise<void> {}
