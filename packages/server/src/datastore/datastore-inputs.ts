import { z } from 'zod';
import type { DataStoreOptions } from '../core/config.js';
import { LONE_SURROGATE, looseInt, withoutNulls } from '../core/validation.js';

/**
 * The input shapes of the data store operations, in the original's wire forms: an address is a
 * `key` or an `id`, each also as a list; items come as `items` (one object or a list) or as
 * `key`/`value` at the top level. Reasons are the seed's (`required`, `too long`, `invalid`).
 */
export type DataStoreLimits = Pick<
  DataStoreOptions,
  'maxKeyLength' | 'maxValueBytes' | 'maxBatch' | 'defaultPageSize' | 'maxPageSize'
>;

/** Control characters make keys unprintable and unsafe in logs and URLs; lone surrogates cannot be stored as UTF-8. */
const BAD_CHARS = /[\p{Cc}\p{Cs}]/u;
const OWNER_MAX = 320;

const asList = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? [v] : v);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const objectAsList = (v: unknown) => (isObject(v) ? [v] : v);
/** Inside `items` too, a `null` member counts as absent. */
const nullsDropped = (v: unknown) => (isObject(v) ? withoutNulls(v) : v);

export function createDataStoreInputs(limits: DataStoreLimits) {
  /** The reason a key is refused, or null: the one rule behind the schemas and the getItem fast path. */
  const keyProblem = (s: string): 'required' | 'too long' | 'invalid' | null => {
    if (s.trim().length === 0) return 'required';
    // Counted in characters (code points), as a user sees them, not in UTF-16 units.
    if (s.length > limits.maxKeyLength && [...s].length > limits.maxKeyLength) return 'too long';
    return BAD_CHARS.test(s) ? 'invalid' : null;
  };
  const key = z.string().superRefine((s, ctx) => {
    const problem = keyProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
  /** The reason a value is refused, or null: the one rule behind the schemas and the setItem fast path. */
  const valueProblem = (v: string | number): 'too long' | 'invalid' | null => {
    if (typeof v === 'number') return Number.isFinite(v) ? null : 'invalid';
    if (LONE_SURROGATE.test(v)) return 'invalid';
    return Buffer.byteLength(v) > limits.maxValueBytes ? 'too long' : null;
  };
  const value = z.union([z.string(), z.number()]).superRefine((v, ctx) => {
    const problem = valueProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
  const id = looseInt.pipe(z.number().min(1));
  const owner = z.string().min(1).max(OWNER_MAX);
  const keys = z.preprocess(asList, z.array(key).min(1));
  const ids = z.preprocess(asList, z.array(id).min(1));

  // Whichever of key, id or items addresses the items. `newOwner` belongs to setOwner only;
  // the other operations ignore it like any unknown field.
  const addressed = z
    .object({
      key: keys.optional(),
      id: ids.optional(),
      items: z
        .preprocess(
          objectAsList,
          z.array(
            z.preprocess(nullsDropped, z.object({ key: key.optional(), id: id.optional(), owner: owner.optional() })),
          ),
        )
        .optional(),
      owner: owner.optional(),
      newOwner: owner.optional(),
    })
    .superRefine((v, ctx) => {
      if (!v.key && !v.id && !v.items?.length) ctx.addIssue({ code: 'custom', message: 'required', path: ['key'] });
      v.items?.forEach((item, i) => {
        if (item.key === undefined && item.id === undefined)
          ctx.addIssue({ code: 'custom', message: 'required', path: ['items', i, 'key'] });
      });
    });

  const writeItem = z.preprocess(
    nullsDropped,
    z.object({ key: key.optional(), id: id.optional(), value: value.optional(), owner: owner.optional() }),
  );
  const writes = (byId: boolean) =>
    z
      .object({
        items: z.preprocess(objectAsList, z.array(writeItem).min(1)).optional(),
        key: key.optional(),
        id: id.optional(),
        value: value.optional(),
        owner: owner.optional(),
      })
      .superRefine((v, ctx) => {
        const list = v.items ?? [];
        const prefix = v.items ? (i: number) => ['items', i] : () => [];
        if (!v.items) {
          if (v.key === undefined && (!byId || v.id === undefined))
            ctx.addIssue({ code: 'custom', message: 'required', path: ['key'] });
          if (v.value === undefined) ctx.addIssue({ code: 'custom', message: 'required', path: ['value'] });
        }
        list.forEach((item, i) => {
          if (item.key === undefined && (!byId || item.id === undefined))
            ctx.addIssue({ code: 'custom', message: 'required', path: [...prefix(i), 'key'] });
          if (item.value === undefined)
            ctx.addIssue({ code: 'custom', message: 'required', path: [...prefix(i), 'value'] });
        });
      });

  const page = {
    order: z.enum(['<', '>']).default('<'),
    start: looseInt.pipe(z.number().min(1)).default(1),
    size: looseInt.pipe(z.number().min(0)).optional(),
    owner: owner.optional(),
    /** Only keys that start with this text (the admin pages' key filter; any client may use it). */
    prefix: z.string().max(limits.maxKeyLength).optional(),
  };

  const keysQuery = z.object(page);

  /**
   * The common page query, nothing but `start` and `size` (numbers, or the digits a query
   * string carries), checked directly: the schema gives the same at several times the cost.
   * Anything else, or anything invalid, is null and goes through the schema (which says what
   * is wrong). The same for `list` (its `sort` then the default, `key`).
   */
  function plainPage(input: object): z.output<typeof keysQuery> | null {
    const { start, size, order, owner, prefix, key, sort } = input as Record<string, unknown>;
    if (order !== undefined || owner !== undefined || prefix !== undefined) return null;
    if (key !== undefined || sort !== undefined) return null;
    const first = start === undefined ? 1 : wholeNumber(start);
    const count = size === undefined ? undefined : wholeNumber(size);
    if (first === null || first < 1 || count === null) return null;
    return count === undefined ? { order: '<', start: first } : { order: '<', start: first, size: count };
  }

  return {
    limits,
    keyProblem,
    valueProblem,
    plainPage,
    singleKey: z.object({ key }),
    addressed,
    newItem: writes(false),
    setItem: writes(true),
    list: z.object({ key: keys.optional(), sort: z.enum(['key', 'value', 'timestamp']).default('key'), ...page }),
    keys: keysQuery,
  };
}

/** A whole number of at least 0, as `looseInt` reads one (core/validation.ts), or null. */
function wholeNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : null;
  return typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : null;
}

export type DataStoreInputs = ReturnType<typeof createDataStoreInputs>;
export type WriteInput = z.output<DataStoreInputs['setItem']>;
export type AddressedInput = z.output<DataStoreInputs['addressed']>;

/*
 * What callers pass to the store's operations (datastore-service.ts). The schemas above check
 * every call against them, and also take the text forms a query string carries (`id=7`, `start=2`):
 * the original protocol's adapter (http/protocol/datastore-protocol.ts) hands its values over as
 * they came.
 */

/** One item named in `items`: by key or id; with `owner`, only while that user owns it. */
export interface ItemRef {
  key?: string;
  id?: number;
  owner?: string;
}

/**
 * The items a read, removal or owner change reaches: keys, ids
 * (one or a list) or `items`; `owner` keeps only that user's.
 */
export interface ItemAddress {
  key?: string | readonly string[];
  id?: number | readonly number[];
  items?: ItemRef | readonly ItemRef[];
  owner?: string;
}

/** An owner change: `newOwner` is the new owner (and `owner` a filter); without it, `owner` is the new owner. */
export interface OwnerChange extends ItemAddress {
  newOwner?: string;
}

/** One item to write: by key (or, to replace it, by id), with its value and optionally its owner. */
export interface ItemWrite {
  key?: string;
  id?: number;
  value: string | number;
  owner?: string;
}

/** Items to write: `items` (one or a list), or one item's fields at the top level. */
export interface ItemWrites {
  items?: ItemWrite | readonly ItemWrite[];
  key?: string;
  id?: number;
  value?: string | number;
  owner?: string;
}

/** A page of keys: `start` counts from 1; `size` is capped at the store's `maxPageSize`. */
export interface KeysQuery {
  order?: '<' | '>';
  start?: number;
  size?: number;
  /** Only this user's items (name, email or id). */
  owner?: string;
  /** Only keys starting with this text. */
  prefix?: string;
}

/** A page of items: a key query, narrowed to `key` (one or a list) and sorted. */
export interface ListQuery extends KeysQuery {
  key?: string | readonly string[];
  sort?: 'key' | 'value' | 'timestamp';
}
