import { accountOf, type ScimContext } from './scim-context.js';
import { ScimError } from './scim-errors.js';
import { parseFilter } from './scim-filter.js';
import { groupOps, groupResource } from './scim-group-ops.js';
import type { ScimGroupRow, ScimUserRow } from './scim-repo.js';
import { GROUP_TYPE, USER_TYPE } from './scim-schemas.js';
import { userResource } from './scim-user-ops.js';

/**
 * The list answers (RFC 7644 §3.4.2): `filter`, then `startIndex` (from 1) and `count` paging.
 * The one-attribute equalities identity providers look accounts up by (`userName eq`,
 * `externalId eq`, `id eq`, `displayName eq`) are answered by an index; any other filter is run
 * on every resource in memory, up to `SCAN_MAX` of them (else `tooMany`, docs/users.md "SCIM").
 */

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
/** The page size without `count`, and the largest (RFC 7644 §3.4.2.4 lets the server cap it). */
const COUNT_DEFAULT = 100;
const COUNT_MAX = 1000;
/** Resources a filter without an index may be run on. */
const SCAN_MAX = 10_000;
/** Accounts read at a time while resources are made. */
const READ_AT_ONCE = 20;

export interface ListParams {
  filter?: string | undefined;
  startIndex?: string | undefined;
  count?: string | undefined;
}

function paging(params: ListParams): { start: number; count: number } {
  const number = (text: string | undefined, name: string, fallback: number) => {
    if (text === undefined || text === '') return fallback;
    if (!/^-?\d{1,9}$/.test(text)) throw new ScimError(400, `${name} must be an integer.`, 'invalidValue');
    return Number(text);
  };
  // Less than 1 is read as 1, a negative count as 0 (RFC 7644 §3.4.2.4).
  return {
    start: Math.max(1, number(params.startIndex, 'startIndex', 1)),
    count: Math.min(COUNT_MAX, Math.max(0, number(params.count, 'count', COUNT_DEFAULT))),
  };
}

const listBody = (total: number, start: number, resources: readonly object[]) => ({
  schemas: [LIST_SCHEMA],
  totalResults: total,
  startIndex: start,
  itemsPerPage: resources.length,
  Resources: resources,
});

async function inBatches<T, R>(items: readonly T[], make: (item: T) => Promise<R | null>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += READ_AT_ONCE) {
    for (const made of await Promise.all(items.slice(i, i + READ_AT_ONCE).map(make))) if (made !== null) out.push(made);
  }
  return out;
}

export async function listUsers(ctx: ScimContext, params: ListParams) {
  const { start, count } = paging(params);
  const groups = await ctx.repo.groups(0, SCAN_MAX);
  const resourcesOf = (rows: readonly ScimUserRow[]) =>
    inBatches(rows, async (row) => {
      const account = await accountOf(ctx, row.userId);
      return account ? userResource(ctx, row, account, groups) : null;
    });
  if (!params.filter) {
    const total = await ctx.repo.countUsers();
    return listBody(total, start, count ? await resourcesOf(await ctx.repo.users(start - 1, count)) : []);
  }
  const filter = parseFilter(params.filter, USER_TYPE.filter);
  const equality = filter.equality;
  let rows: ScimUserRow[];
  if (equality?.attribute === 'username') rows = compact([await ctx.repo.userByName(equality.value)]);
  else if (equality?.attribute === 'id') rows = compact([await ctx.repo.userById(equality.value)]);
  else if (equality?.attribute === 'externalid') rows = await ctx.repo.usersByExternalId(equality.value);
  else
    rows = await scanned(
      () => ctx.repo.countUsers(),
      () => ctx.repo.users(0, SCAN_MAX),
    );
  const matching = (await resourcesOf(rows)).filter((resource) => filter.test(resource));
  return listBody(matching.length, start, matching.slice(start - 1, start - 1 + count));
}

export async function listGroups(ctx: ScimContext, params: ListParams, withMembers: boolean) {
  const { start, count } = paging(params);
  const ops = groupOps(ctx);
  const resourcesOf = (rows: readonly ScimGroupRow[]) =>
    inBatches(rows, async (group) => groupResource(ctx, group, withMembers ? await ops.membersOf(group) : []));
  if (!params.filter) {
    const total = await ctx.repo.countGroups();
    return listBody(total, start, count ? await resourcesOf(await ctx.repo.groups(start - 1, count)) : []);
  }
  const filter = parseFilter(params.filter, GROUP_TYPE.filter);
  const equality = filter.equality;
  let rows: ScimGroupRow[];
  if (equality?.attribute === 'displayname') rows = compact([await ctx.repo.groupByName(equality.value)]);
  else if (equality?.attribute === 'id') rows = compact([await ctx.repo.groupById(equality.value)]);
  else
    rows = await scanned(
      () => ctx.repo.countGroups(),
      () => ctx.repo.groups(0, SCAN_MAX),
    );
  // A filter on members needs them even when the answer leaves them out.
  const needsMembers = withMembers || /members/i.test(params.filter);
  const resources = await inBatches(rows, async (group) =>
    groupResource(ctx, group, needsMembers ? await ops.membersOf(group) : []),
  );
  const matching = resources.filter((resource) => filter.test(resource));
  const page = matching.slice(start - 1, start - 1 + count);
  return listBody(matching.length, start, withMembers ? page : page.map(({ members: _m, ...rest }) => rest));
}

const compact = <T>(rows: readonly (T | null)[]): T[] => rows.filter((r): r is T => r !== null);

async function scanned<T>(count: () => Promise<number>, read: () => Promise<T[]>): Promise<T[]> {
  if ((await count()) > SCAN_MAX)
    throw new ScimError(
      400,
      `This filter is run on every resource, and there are more than ${SCAN_MAX}: filter by an indexed attribute.`,
      'tooMany',
    );
  return read();
}
