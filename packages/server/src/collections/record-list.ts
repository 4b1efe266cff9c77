import type { RawBuilder, SqlBool } from 'kysely';
import { commonErrors } from '../core/errors.js';
import type { Dialect } from '../storage/database.js';
import type { Access } from './collection-access.js';
import type { CollectionState } from './collection-state.js';
import { relationChains } from './record-events.js';
import { recordView, type RecordView } from './record-ops.js';
import type { RecordsRepo } from './records-repo.js';
import {
  afterCursorSql,
  type CheckedFilter,
  cursorOf,
  filterSql,
  parseSort,
  prepareFilter,
  type QueryContext,
  type ResolveCollection,
  sortSql,
} from './query/index.js';

/**
 * A page of a collection's records (issue 39, item 3): the list rule's condition and the
 * caller's filter in the query's WHERE, so a page, its total and its cursor count only what the
 * caller may read; keyset paging by an opaque cursor, so a page costs the same deep in a large
 * collection as at its start.
 */

export interface RecordQuery {
  filter?: string | undefined;
  sort?: string | undefined;
  /** Records per page (default 30, at most 500). */
  perPage?: number | undefined;
  /** Where the page starts: the `next` of the page before. */
  cursor?: string | undefined;
  /** Count every record the query matches (costs a second query). */
  total?: boolean | undefined;
}

export interface RecordPage {
  items: RecordView[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
  /** With `total`: how many records match. */
  total?: number;
}

const PAGE_SIZES = { default: 30, max: 500 } as const;

/**
 * The filters lately asked of each version of a collection, checked (query/ `prepareFilter`: a
 * checked filter holds no caller and no time, filterSql applies them): a client asks the same
 * filters again and again, and parsing and checking one cost about 40 µs a page (bench/RESULTS.md,
 * sixteenth session). At most FILTERS_KEPT per version, the oldest forgotten first. A filter that
 * follows relations is checked each time: it was checked against the related collections' versions
 * of its time, which may have changed since.
 */
const checkedFilters = new WeakMap<CollectionState, Map<string, CheckedFilter>>();
const FILTERS_KEPT = 200;

function checkedFilter(text: string, state: CollectionState, resolve: ResolveCollection): CheckedFilter {
  const kept = checkedFilters.get(state) ?? new Map<string, CheckedFilter>();
  if (!checkedFilters.has(state)) checkedFilters.set(state, kept);
  const known = kept.get(text);
  if (known) return known;
  const checked = prepareFilter(text, state.fields, resolve);
  if (relationChains(checked).length > 0) return checked;
  if (kept.size >= FILTERS_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(text, checked);
  return checked;
}

export async function listRecords(
  repo: RecordsRepo,
  state: CollectionState,
  access: Extract<Access, { allowed: true }>,
  query: RecordQuery,
  how: { dialect: Dialect; context: QueryContext; resolve: ResolveCollection },
): Promise<RecordPage> {
  const { dialect, context } = how;
  const perPage = query.perPage ?? PAGE_SIZES.default;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > PAGE_SIZES.max)
    throw commonErrors.validation_failure({ fields: [['perPage', `a whole number from 1 to ${PAGE_SIZES.max}`]] });
  // The rule's condition and the caller's filter: what the page, its total and its cursor may see.
  const matching: RawBuilder<SqlBool>[] = access.where ? [access.where] : [];
  if (query.filter !== undefined && query.filter.trim() !== '') {
    const filter = checkedFilter(query.filter, state, how.resolve);
    matching.push(filterSql(filter, { dialect, alias: 'r', context }));
  }
  const sort = parseSort(query.sort, state.fields);
  const where = [...matching];
  if (query.cursor !== undefined) where.push(afterCursorSql(sort, query.cursor, dialect, 'r'));
  const { records: rows, total } = await repo.list(state.name, {
    where,
    order: [sortSql(sort, dialect, 'r')],
    limit: perPage + 1,
    countOf: query.total ? matching : undefined,
  });
  const items = rows.slice(0, perPage);
  const last = items.at(-1);
  const page: RecordPage = {
    items: items.map(recordView),
    next: rows.length > perPage && last ? cursorOf(sort, last) : null,
  };
  if (total !== null) page.total = total;
  return page;
}
