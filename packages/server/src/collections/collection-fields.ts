/**
 * A collection's fields as the rest of the collections kind reads them (issue 39, item 1): made
 * once from its JSON Schema (collection-schema.ts) and read by the queries (query/), the record
 * table's indexes (records-repo.ts) and the answers. A field's `kind` is what a filter may do
 * with it; the JSON Schema stays the one description of what a record may hold.
 */

/** What a stored value is, as queries compare it. */
export type FieldKind = 'text' | 'number' | 'boolean' | 'array' | 'object' | 'json';

/** The string formats of the subset (docs/collections.md). */
export const TEXT_FORMATS = ['email', 'uri', 'date', 'date-time', 'uuid'] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];

export interface Field {
  /** Its name in the record: letters, digits and `_`, not starting with a digit. */
  readonly name: string;
  readonly kind: FieldKind;
  /** `integer` of JSON Schema (kind `number`). */
  readonly integer: boolean;
  readonly format: TextFormat | null;
  /** The id of a record of this collection (`users`: an account's id). Kind `text`. */
  readonly relation: string | null;
  /** A file's path in this file store. Kind `text`. */
  readonly file: string | null;
  /** Kind `array`: what each element is (its `name` is the array's). */
  readonly items: Field | null;
  /** Kind `object`: its members. */
  readonly fields: readonly Field[];
  readonly required: boolean;
  /** No two records hold the same value (a unique index, record-indexes.ts). */
  readonly unique: boolean;
}

/** The columns every record has beside its fields (`data`). */
export const SYSTEM_FIELDS = ['id', 'created', 'updated', 'owner'] as const;
export type SystemField = (typeof SYSTEM_FIELDS)[number];

const plain = (name: string, kind: FieldKind, extra: Partial<Field> = {}): Field => ({
  name,
  kind,
  integer: false,
  format: null,
  relation: null,
  file: null,
  items: null,
  fields: [],
  required: false,
  unique: false,
  ...extra,
});

/** The system columns as fields: what a filter or a sort may name besides the schema's own. */
export const SYSTEM_FIELD_DEFS: Readonly<Record<SystemField, Field>> = Object.freeze({
  id: plain('id', 'text', { required: true, unique: true }),
  created: plain('created', 'text', { format: 'date-time', required: true }),
  updated: plain('updated', 'text', { format: 'date-time', required: true }),
  owner: plain('owner', 'text', { relation: 'users' }),
});

export { plain as fieldOf };

/** A collection as its queries see it: its name and its fields (system fields not among them). */
export interface CollectionFields {
  readonly name: string;
  readonly fields: readonly Field[];
}

/**
 * The field at a dotted path (`address.city`), a system field for a one-part path, or undefined.
 * A path into a `json` field goes on freely (`meta.a.b`): its members have no declared kind.
 */
export function fieldAt(collection: CollectionFields, path: readonly string[]): Field | undefined {
  const [first, ...rest] = path;
  if (first === undefined) return undefined;
  if (rest.length === 0 && Object.hasOwn(SYSTEM_FIELD_DEFS, first)) return SYSTEM_FIELD_DEFS[first as SystemField];
  let field = collection.fields.find((f) => f.name === first);
  for (const part of rest) {
    if (!field) return undefined;
    if (field.kind === 'json') return plain(part, 'json');
    field = field.kind === 'object' ? field.fields.find((f) => f.name === part) : undefined;
  }
  return field;
}

/** Collection and field names: safe in SQL identifiers and JSON paths without quoting tricks. */
export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** Collection names are lower case: a table's name (records-repo.ts) and a URL segment. */
export const COLLECTION_NAME_PATTERN = /^[a-z][a-z0-9_]{0,40}$/;

/** The table of a collection's records: `records_<name>` (records-repo.ts makes it). */
export const recordTable = (collection: string) => `records_${collection}`;
