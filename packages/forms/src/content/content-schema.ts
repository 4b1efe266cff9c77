/* The one table of the content model. Plain `text`/`integer` columns and JSON as text, so the
   same statements run on SQLite and PostgreSQL. */
import type { Kysely } from 'kysely';

/** Default table name: prefixed so it never meets the host's own tables (users, sessions, ...). */
export const defaultContentTable = 'form_objects';

/** One stored object. `data` and `meta` are JSON texts; times are ISO 8601 (UTC) texts. */
export interface FormObjectsTable {
  id: string;
  /** Null for a root. */
  parent_id: string | null;
  type: string;
  /** Order among siblings (0-based, gaps allowed). */
  position: number;
  data: string;
  meta: string;
  wf_state: string | null;
  created_at: string;
  changed_at: string;
  created_by: string | null;
  changed_by: string | null;
}

/** The database shape the content model queries (under its table name). */
export type FormContentDatabase = Record<string, FormObjectsTable>;

/**
 * Creates the table and its sibling index if they are missing. Safe to run at every start; a
 * host with its own migrations can call it from one.
 *
 * @example
 * await ensureContentSchema(db); // form_objects
 */
export async function ensureContentSchema(db: Kysely<FormContentDatabase>, table = defaultContentTable): Promise<void> {
  await db.schema
    .createTable(table)
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('parent_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('meta', 'text', (c) => c.notNull())
    .addColumn('wf_state', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('changed_by', 'text')
    .execute();
  await db.schema
    .createIndex(`${table}_parent_position`)
    .ifNotExists()
    .on(table)
    .columns(['parent_id', 'position'])
    .execute();
}
