import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { commonErrors } from '../core/errors.js';
import type { Principal } from '../core/permissions.js';
import type { Dialect } from '../storage/database.js';
import type { Access } from './collection-access.js';
import type { CollectionState } from './collection-state.js';
import { recordView, type RecordView } from './record-ops.js';
import type { RecordsRepo } from './records-repo.js';

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

const encode = (values: readonly unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');

function decode(cursor: string): [string, string] {
  try {
    const values: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(values) && values.length === 2 && values.every((v) => typeof v === 'string'))
      return values as [string, string];
  } catch {
    // falls through to the refusal
  }
  throw commonErrors.validation_failure({ fields: [['cursor', 'not a cursor of this list']] });
}

export async function listRecords(
  repo: RecordsRepo,
  state: CollectionState,
  access: Extract<Access, { allowed: true }>,
  query: RecordQuery,
  _context: { dialect: Dialect; principal: Principal },
): Promise<RecordPage> {
  const perPage = query.perPage ?? PAGE_SIZES.default;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > PAGE_SIZES.max)
    throw commonErrors.validation_failure({ fields: [['perPage', `a whole number from 1 to ${PAGE_SIZES.max}`]] });
  const where: RawBuilder<SqlBool>[] = access.where ? [access.where] : [];
  const matching = [...where];
  if (query.cursor !== undefined) {
    const [created, id] = decode(query.cursor);
    where.push(sql<SqlBool>`(r.created < ${created} OR (r.created = ${created} AND r.id < ${id}))`);
  }
  const rows = await repo.list(state.name, {
    where,
    order: [sql`r.created DESC`, sql`r.id DESC`],
    limit: perPage + 1,
  });
  const items = rows.slice(0, perPage);
  const last = items.at(-1);
  const page: RecordPage = {
    items: items.map(recordView),
    next: rows.length > perPage && last ? encode([last.created, last.id]) : null,
  };
  if (query.total) page.total = await repo.countWhere(state.name, matching);
  return page;
}
