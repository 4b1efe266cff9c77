/**
 * The types of the collections' records and answers (docs/collections.md). A collection's own
 * record type comes from `roost types` (its `Collections` map, packages/server/src/cli/record-types.ts);
 * without it a record is {@link AnyRecord}.
 */

/** The fields every record has beside its data. */
export interface RecordBase {
  /** A UUIDv7: ids sort in the order records were made. */
  id: string;
  /** ISO 8601, UTC. */
  created: string;
  updated: string;
  /** The creator's user id; null for a record made anonymously. */
  owner: string | null;
}

export type SystemField = keyof RecordBase;

/** A record of a collection whose type is not known here: its fields are `unknown`. */
export interface AnyRecord extends RecordBase {
  [field: string]: unknown;
}

/**
 * Each collection's name with its record type: what `roost types` writes as `Collections`. A
 * self-referential bound, so that an interface (which has no index signature) fits.
 */
export type RecordMap<C> = { [K in keyof C]: RecordBase };

/** Any collection, any record: the map of a `collections()` connector without generated types. */
export type AnyCollections = Record<string, AnyRecord>;

/** What a create or a replace sends: the record's own fields, without the system fields. */
export type RecordData<R extends RecordBase> = Omit<R, SystemField>;

/** What an update sends: the fields to change; `null` removes a field. */
export type RecordPatch<R extends RecordBase> = { [K in keyof RecordData<R>]?: RecordData<R>[K] | null };

/** Members of object fields, 6 levels deep as the schema allows (collection-schema.ts). */
type Paths<T, Depth extends unknown[]> = Depth['length'] extends 6
  ? never
  : {
      [K in keyof T & string]:
        | K
        | (NonNullable<T[K]> extends readonly unknown[]
            ? never
            : NonNullable<T[K]> extends object
              ? `${K}.${Paths<NonNullable<T[K]>, [...Depth, unknown]>}`
              : never);
    }[keyof T & string];

/** A field of `R` by its path (`title`, `address.city`); any text for {@link AnyRecord}. */
export type FieldPath<R> = string extends keyof R ? string : Paths<R, []>;

/** A field to sort by, `-` before it for descending (docs/collection-queries.md "Sort"). */
export type SortField<R> = FieldPath<R> | `-${FieldPath<R>}` | `+${FieldPath<R>}`;

/** The parameters of a page (docs/collections.md "Pages"). */
export interface RecordQuery<R = AnyRecord> {
  /**
   * An expression of the filter language (docs/collection-queries.md): build it with
   * `filter('status = {:status}', { status })` so values are quoted, never pasted.
   */
  filter?: string;
  /** One field or several (`['-priority', 'title']`); default `-created`. */
  sort?: SortField<R> | readonly SortField<R>[];
  /** Records per page: 1 to 500, default 30. */
  perPage?: number;
  /** Where the page starts: the `next` of the page before (null or absent: the first page). */
  cursor?: string | null;
  /** Count every record the filter and the `list` rule match (a second query). */
  total?: boolean;
  /** Relation fields whose records each answer brings under `expand` (`['author', 'author.org']`). */
  expand?: ExpandPaths;
}

/**
 * Relation paths to expand (docs/collections.md, "Relations and files"): at most 8, each at most
 * two relations deep. Each related record comes under its own collection's `view` rule.
 */
export type ExpandPaths = string | readonly string[];

/** What an answer asked with `expand` carries besides the record: the related records by field. */
export interface Expanded {
  expand?: Record<string, unknown>;
}

/** A page of records: `next` is the cursor of the next page, null on the last. */
export interface RecordPage<R = AnyRecord> {
  items: R[];
  next: string | null;
  /** With `total: true`. */
  total?: number;
}

/** One write of a batch on one collection (`Collection.batch`). */
export type RecordOperation<R extends RecordBase> =
  | { action: 'create'; data: RecordData<R> }
  | { action: 'update'; id: string; data: RecordPatch<R> }
  | { action: 'replace'; id: string; data: RecordData<R> }
  | { action: 'delete'; id: string };

/** One write of a batch of any collections of `C` (`CollectionsConnector.batch`). */
export type BatchOperation<C extends RecordMap<C>> = {
  [N in keyof C & string]: { collection: N } & RecordOperation<C[N]>;
}[keyof C & string];

/** The answer of each write, in order: the record as stored, or null for a deletion. */
export type BatchResults<C extends RecordMap<C>, Ops extends readonly BatchOperation<C>[]> = {
  [I in keyof Ops]: Ops[I] extends { action: 'delete' }
    ? null
    : Ops[I] extends { collection: infer N extends keyof C }
      ? C[N]
      : never;
};
