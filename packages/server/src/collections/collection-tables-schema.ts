/**
 * The collections kind's tables (docs/architecture.md, "Domains own their tables"): the
 * collections themselves and their schemas' history. Each collection's records have a table of
 * their own, `records_<name>`, made and changed by records-repo.ts as its schema says.
 */

export interface CollectionsTable {
  name: string;
  /** Its JSON Schema, as JSON text (collection-schema.ts). */
  schema: string;
  /** Its rules per operation, as JSON text (collection-rules.ts). */
  rules: string;
  /** Counts its schema changes: 1 when made. */
  version: number;
  created: string;
  updated: string;
}

interface CollectionHistoryTable {
  name: string;
  version: number;
  schema: string;
  rules: string;
  changed_at: string;
  /** The administrator's user id; null for the configuration file. */
  changed_by: string | null;
}

export interface CollectionTables {
  collections: CollectionsTable;
  collection_history: CollectionHistoryTable;
}

/** A record as its table holds it; `data` is JSON text on SQLite, a parsed jsonb value from PostgreSQL. */
export interface RecordRow {
  id: string;
  owner: string | null;
  created: string;
  updated: string;
  data: string | Record<string, unknown>;
}
