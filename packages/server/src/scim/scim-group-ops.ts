import { newId } from '../core/ids.js';
import { ADMINS } from '../core/permissions.js';
import type { ListQuery } from '../users/index.js';
import { changeGroups, metaOf, type ScimContext } from './scim-context.js';
import { invalidSyntax, invalidValue, notFound, possibleId, uniqueness, versionChanged } from './scim-errors.js';
import { ScimTakenError, type ScimGroupRow } from './scim-repo.js';
import { GROUP_SCHEMA, GROUP_TYPE } from './scim-schemas.js';

/**
 * The SCIM Group (RFC 7643 §4.2) over a Roost group: its `displayName` is the group its members'
 * accounts carry (users.groups), so a membership given or taken changes what the account may do
 * (core/grants.ts) at once. Its members are the provisioned accounts that carry it; accounts
 * put in the group in Roost itself are left alone.
 */

/** Accounts read per page when a group's members are listed. */
const MEMBER_PAGE = 500;
/** Membership changes run this many at a time. */
const PARALLEL_CHANGES = 8;

export interface Member {
  value: string;
  display: string;
  $ref: string;
  type: 'User';
}

export function groupResource(ctx: ScimContext, group: ScimGroupRow, members: readonly Member[]) {
  return {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    ...(group.externalId !== null ? { externalId: group.externalId } : {}),
    displayName: group.displayName,
    members,
    meta: metaOf('Group', `${ctx.base}/Groups/${group.id}`, group),
  };
}

interface GroupValues {
  displayName: string;
  externalId: string | null;
  members: string[];
}

/**
 * The Roost groups an identity provider may not give: `admins` (administrators are made in
 * Roost, docs/users.md "SCIM") and the pseudo-groups (`sys:…`, core/permissions.ts).
 */
function reservedName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === ADMINS || lower.startsWith('sys:');
}

export function groupOps(ctx: ScimContext) {
  const { repo, clock } = ctx;

  async function load(id: string): Promise<ScimGroupRow> {
    const group = possibleId(id) ? await repo.groupById(id) : null;
    if (!group) throw notFound('Group', id);
    return group;
  }

  /** The provisioned accounts that carry the group's Roost group. */
  async function membersOf(group: ScimGroupRow): Promise<Member[]> {
    const ids: string[] = [];
    for (let start = 1; ; start += MEMBER_PAGE) {
      const query: ListQuery = { group: group.displayName, start, sort: 'created', order: '<' };
      const page = await ctx.users.listUsers(query, MEMBER_PAGE);
      ids.push(...page.users.map((u) => u.id));
      if (page.users.length < MEMBER_PAGE) break;
    }
    const rows = await repo.usersByIds(ids);
    return rows.map((row) => ({
      value: row.userId,
      display: row.userName,
      $ref: `${ctx.base}/Users/${row.userId}`,
      type: 'User' as const,
    }));
  }

  /** A body checked: its name free to use, its members provisioned accounts. */
  async function groupValues(body: unknown): Promise<GroupValues> {
    const read = GROUP_TYPE.read(body);
    if (!(read.schemas as string[]).includes(GROUP_SCHEMA)) throw invalidSyntax(`"schemas" must list ${GROUP_SCHEMA}.`);
    const displayName = typeof read.displayName === 'string' ? read.displayName.trim() : '';
    if (!displayName) throw invalidValue('displayName is required.');
    if (displayName.length > 100) throw invalidValue('displayName is longer than 100 characters (a Roost group name).');
    if (reservedName(displayName))
      throw invalidValue(`"${displayName}" is a Roost group that an identity provider may not give.`);
    const given = ((read.members ?? []) as { value?: string }[]).map((m) => m.value);
    if (given.some((value) => typeof value !== 'string' || value === ''))
      throw invalidValue('Each member needs the "value" of a User.');
    const members = [...new Set(given as string[])];
    const known = new Set((await repo.usersByIds(members)).map((row) => row.userId));
    const unknown = members.filter((id) => !known.has(id));
    if (unknown.length) throw invalidValue(`No User has the id "${unknown[0]}" (members must be provisioned Users).`);
    return { displayName, externalId: (read.externalId as string | undefined) ?? null, members };
  }

  /** Runs `change` for each account, a few at a time. */
  async function eachAccount(ids: readonly string[], change: (id: string) => Promise<void>): Promise<void> {
    for (let i = 0; i < ids.length; i += PARALLEL_CHANGES)
      await Promise.all(ids.slice(i, i + PARALLEL_CHANGES).map(change));
  }

  const adding = (name: string) => (groups: readonly string[]) =>
    groups.includes(name) ? [...groups] : [...groups, name];
  const removing = (name: string) => (groups: readonly string[]) => groups.filter((g) => g !== name);
  const renaming = (from: string, to: string) => (groups: readonly string[]) =>
    removing(from)(adding(to)(groups)).filter((g, i, all) => all.indexOf(g) === i);

  async function create(body: unknown): Promise<ScimGroupRow> {
    const values = await groupValues(body);
    const now = clock.now();
    const group: ScimGroupRow = {
      id: newId(),
      displayName: values.displayName,
      externalId: values.externalId,
      version: 1,
      created: now,
      modified: now,
    };
    try {
      await repo.insertGroup(group);
    } catch (err) {
      if (err instanceof ScimTakenError) throw uniqueness(`The displayName "${values.displayName}" is taken.`);
      throw err;
    }
    await eachAccount(values.members, (id) => changeGroups(ctx, id, adding(group.displayName)));
    return group;
  }

  /** PUT, and a PATCH's result: the name first (it may be taken), then the memberships it changes. */
  async function replace(group: ScimGroupRow, members: readonly Member[], body: unknown): Promise<void> {
    const values = await groupValues(body);
    const next: ScimGroupRow = {
      ...group,
      displayName: values.displayName,
      externalId: values.externalId,
      version: group.version + 1,
      modified: clock.now(),
    };
    try {
      if (!(await repo.replaceGroup(next, group.version))) throw versionChanged();
    } catch (err) {
      if (err instanceof ScimTakenError) throw uniqueness(`The displayName "${values.displayName}" is taken.`);
      throw err;
    }
    const before = new Set(members.map((m) => m.value));
    const after = new Set(values.members);
    const renamed = next.displayName !== group.displayName;
    await eachAccount(
      [...before].filter((id) => !after.has(id)),
      (id) => changeGroups(ctx, id, removing(group.displayName)),
    );
    const joining = values.members.filter((id) => !before.has(id));
    await eachAccount(joining, (id) => changeGroups(ctx, id, adding(next.displayName)));
    if (renamed)
      await eachAccount(
        values.members.filter((id) => before.has(id)),
        (id) => changeGroups(ctx, id, renaming(group.displayName, next.displayName)),
      );
  }

  async function remove(group: ScimGroupRow, members: readonly Member[]): Promise<void> {
    await repo.removeGroup(group.id);
    await eachAccount(
      members.map((m) => m.value),
      (id) => changeGroups(ctx, id, removing(group.displayName)),
    );
  }

  return { load, membersOf, create, replace, remove };
}
