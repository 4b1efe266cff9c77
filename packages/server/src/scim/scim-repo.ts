import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../storage/database-errors.js';
import type { Database } from '../storage/schema.js';

/** What Roost keeps of an account an identity provider provisioned (the account is `users`' row of the same id). */
export interface ScimUserRow {
  userId: string;
  userName: string;
  externalId: string | null;
  /** The SCIM attributes kept as given (name, emails, phone numbers, the enterprise extension, …). */
  attributes: Record<string, unknown>;
  version: number;
  created: number;
  modified: number;
}

/** A provisioned group: `displayName` is the Roost group its members' accounts carry. */
export interface ScimGroupRow {
  id: string;
  displayName: string;
  externalId: string | null;
  version: number;
  created: number;
  modified: number;
}

/** A unique index refused the write: the `userName` or `displayName` is taken. */
export class ScimTakenError extends Error {
  override readonly name = 'ScimTakenError';
}

type UserStored = Database['scim_users'];
type GroupStored = Database['scim_groups'];

const userOf = (r: UserStored): ScimUserRow => ({
  userId: r.user_id,
  userName: r.user_name,
  externalId: r.external_id,
  attributes: JSON.parse(r.attributes) as Record<string, unknown>,
  version: Number(r.version),
  created: Number(r.created),
  modified: Number(r.modified),
});

const groupOf = (r: GroupStored): ScimGroupRow => ({
  id: r.id,
  displayName: r.display_name,
  externalId: r.external_id,
  version: Number(r.version),
  created: Number(r.created),
  modified: Number(r.modified),
});

const userColumns = (row: ScimUserRow): Omit<UserStored, 'lease'> => ({
  user_id: row.userId,
  user_name: row.userName,
  user_name_key: row.userName.toLowerCase(),
  external_id: row.externalId,
  attributes: JSON.stringify(row.attributes),
  version: row.version,
  created: row.created,
  modified: row.modified,
});

const groupColumns = (row: ScimGroupRow): GroupStored => ({
  id: row.id,
  display_name: row.displayName,
  display_key: row.displayName.toLowerCase(),
  external_id: row.externalId,
  version: row.version,
  created: row.created,
  modified: row.modified,
});

async function unique<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ScimTakenError('taken', { cause: err });
    throw err;
  }
}

/** The SCIM tables (`scim_users`, `scim_groups`); the accounts themselves change through the user service. */
export function createScimRepo(db: Kysely<Database>) {
  return {
    async userById(id: string): Promise<ScimUserRow | null> {
      const row = await db.selectFrom('scim_users').selectAll().where('user_id', '=', id).executeTakeFirst();
      return row ? userOf(row) : null;
    },
    async usersByIds(ids: readonly string[]): Promise<ScimUserRow[]> {
      if (ids.length === 0) return [];
      return (await db.selectFrom('scim_users').selectAll().where('user_id', 'in', ids).execute()).map(userOf);
    },
    /** `userName` is not case-exact (RFC 7643 §4.1.1): one per spelling. */
    async userByName(userName: string): Promise<ScimUserRow | null> {
      const row = await db
        .selectFrom('scim_users')
        .selectAll()
        .where('user_name_key', '=', userName.toLowerCase())
        .executeTakeFirst();
      return row ? userOf(row) : null;
    },
    async usersByExternalId(externalId: string): Promise<ScimUserRow[]> {
      const rows = await db.selectFrom('scim_users').selectAll().where('external_id', '=', externalId).execute();
      return rows.map(userOf);
    },
    /** Provisioned accounts in the order made, from `offset`: a page, or all of them for a filter no index answers. */
    async users(offset: number, limit: number): Promise<ScimUserRow[]> {
      const rows = db.selectFrom('scim_users').selectAll().orderBy('created').orderBy('user_id');
      return (await rows.limit(limit).offset(offset).execute()).map(userOf);
    },
    async countUsers(): Promise<number> {
      const row = await db
        .selectFrom('scim_users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /** Throws `ScimTakenError` when the `userName` is taken. */
    async insertUser(row: ScimUserRow): Promise<void> {
      await unique(
        db
          .insertInto('scim_users')
          .values({ ...userColumns(row), lease: null })
          .execute(),
      );
    },
    /** Replaces the row if it is still at `version` (the caller's read); false when another write came first. */
    async replaceUser(row: ScimUserRow, version: number): Promise<boolean> {
      const { user_id: _id, created: _c, ...changes } = userColumns(row);
      const result = await unique(
        db
          .updateTable('scim_users')
          .set(changes)
          .where('user_id', '=', row.userId)
          .where('version', '=', version)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },
    /**
     * Takes the lease on changing the account's groups until `until`, if it is free or expired;
     * false when another process holds it. Released by `releaseUser`; a crashed holder's expires.
     */
    async claimUser(id: string, now: number, until: number): Promise<boolean> {
      const result = await db
        .updateTable('scim_users')
        .set({ lease: until })
        .where('user_id', '=', id)
        .where((eb) => eb.or([eb('lease', 'is', null), eb('lease', '<=', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async releaseUser(id: string, until: number): Promise<void> {
      await db
        .updateTable('scim_users')
        .set({ lease: null })
        .where('user_id', '=', id)
        .where('lease', '=', until)
        .execute();
    },
    async removeUser(id: string): Promise<void> {
      await db.deleteFrom('scim_users').where('user_id', '=', id).execute();
    },

    async groupById(id: string): Promise<ScimGroupRow | null> {
      const row = await db.selectFrom('scim_groups').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? groupOf(row) : null;
    },
    async groupByName(displayName: string): Promise<ScimGroupRow | null> {
      const row = await db
        .selectFrom('scim_groups')
        .selectAll()
        .where('display_key', '=', displayName.toLowerCase())
        .executeTakeFirst();
      return row ? groupOf(row) : null;
    },
    async groups(offset: number, limit: number): Promise<ScimGroupRow[]> {
      const rows = db.selectFrom('scim_groups').selectAll().orderBy('created').orderBy('id');
      return (await rows.limit(limit).offset(offset).execute()).map(groupOf);
    },
    async countGroups(): Promise<number> {
      const row = await db
        .selectFrom('scim_groups')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /** Throws `ScimTakenError` when the `displayName` is taken. */
    async insertGroup(row: ScimGroupRow): Promise<void> {
      await unique(db.insertInto('scim_groups').values(groupColumns(row)).execute());
    },
    async replaceGroup(row: ScimGroupRow, version: number): Promise<boolean> {
      const { id: _id, created: _c, ...changes } = groupColumns(row);
      const result = await unique(
        db
          .updateTable('scim_groups')
          .set(changes)
          .where('id', '=', row.id)
          .where('version', '=', version)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },
    async removeGroup(id: string): Promise<void> {
      await db.deleteFrom('scim_groups').where('id', '=', id).execute();
    },
  };
}

export type ScimRepo = ReturnType<typeof createScimRepo>;
