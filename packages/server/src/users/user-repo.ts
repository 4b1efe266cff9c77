import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, PendingReason, UsersTable, UserState } from '../storage/schema.js';
import { isUniqueViolation } from '../storage/database-errors.js';
import type { ListQuery } from './user-inputs.js';
import { createSessionRepo } from './session-repo.js';
import { toUser } from './user-rows.js';
import { createThrottleRepo } from './throttle-repo.js';
import { createTokenRepo } from './token-repo.js';

export { sessionIdOf, type FoundSession, type SessionInfo } from './session-repo.js';

/** A user account as the domain sees it. */
export interface User {
  id: string;
  name: string;
  email: string | null;
  realname: string;
  passwordHash: string;
  data: string;
  notify: boolean;
  groups: string[];
  state: UserState;
  pending: PendingReason | null;
  created: number;
  activity: number | null;
  failedSignins: number;
  lockedUntil: number | null;
  /** Locks in a row; each lasts longer (signin-throttle.ts). */
  lockouts: number;
  /** Made without a form and not upgraded yet (signin-methods/anonymous/): no way in but its sessions. */
  anonymous: boolean;
}

export interface NewUser {
  id: string;
  name: string;
  email: string | null;
  realname: string;
  passwordHash: string;
  data: string;
  notify: boolean;
  groups: string[];
  state: UserState;
  pending: PendingReason | null;
  created: number;
  /** An anonymous account (signin-methods/anonymous/); a full one when left out. */
  anonymous?: boolean;
}

export type UserChanges = Partial<Omit<User, 'id' | 'created'>>;

/** Raised when an insert or update hits the unique name or email index. */
export class DuplicateUserError extends Error {
  override readonly name = 'DuplicateUserError';
  constructor(readonly field: 'name' | 'email') {
    super(`${field} exists`);
  }
}

function toColumns(changes: UserChanges): Partial<Selectable<UsersTable>> {
  const out: Partial<Selectable<UsersTable>> = {};
  if (changes.name !== undefined) Object.assign(out, { name: changes.name, name_key: changes.name.toLowerCase() });
  if (changes.email !== undefined)
    Object.assign(out, { email: changes.email, email_key: changes.email?.toLowerCase() ?? null });
  if (changes.realname !== undefined) out.realname = changes.realname;
  if (changes.passwordHash !== undefined) out.password_hash = changes.passwordHash;
  if (changes.data !== undefined) out.data = changes.data;
  if (changes.notify !== undefined) out.notify = changes.notify ? 1 : 0;
  if (changes.groups !== undefined) out.groups = JSON.stringify(changes.groups);
  if (changes.state !== undefined) out.state = changes.state;
  if (changes.pending !== undefined) out.pending = changes.pending;
  if (changes.activity !== undefined) out.activity = changes.activity;
  if (changes.failedSignins !== undefined) out.failed_signins = changes.failedSignins;
  if (changes.lockedUntil !== undefined) out.locked_until = changes.lockedUntil;
  if (changes.lockouts !== undefined) out.lockouts = changes.lockouts;
  if (changes.anonymous !== undefined) out.anonymous = changes.anonymous ? 1 : 0;
  return out;
}

/** Which unique index a driver error names, if it is a unique violation at all. */
function duplicateField(err: unknown): 'name' | 'email' | null {
  if (!isUniqueViolation(err)) return null;
  const e = err as { message?: string; constraint?: string };
  const text = `${e.constraint ?? ''} ${e.message ?? ''}`;
  return text.includes('email') ? 'email' : 'name';
}

/** LIKE wildcards of the input escaped (with `escape '\\'` in the query: SQLite has no default). */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
/** LIKE pattern for a case-insensitive substring. */
const containing = (s: string) => `%${escapeLike(s.toLowerCase())}%`;

export function createUserRepo(db: Kysely<Database>) {
  const users = () => db.selectFrom('users').selectAll();

  return {
    /**
     * Inserts the account; with `alongside`, in a transaction that runs it after the insert (an
     * after-hook's jobs, stored with the account: user-hooks.ts), on the transaction's handle.
     */
    async insert(user: NewUser, alongside?: (handle: object) => Promise<void>): Promise<User> {
      const row = {
        id: user.id,
        name: user.name,
        name_key: user.name.toLowerCase(),
        email: user.email,
        email_key: user.email?.toLowerCase() ?? null,
        realname: user.realname,
        password_hash: user.passwordHash,
        data: user.data,
        notify: user.notify ? 1 : 0,
        groups: JSON.stringify(user.groups),
        state: user.state,
        pending: user.pending,
        created: user.created,
        activity: null,
        failed_signins: 0,
        locked_until: null,
        lockouts: 0,
        anonymous: user.anonymous ? 1 : 0,
      };
      try {
        if (alongside)
          await db.transaction().execute(async (trx) => {
            await trx.insertInto('users').values(row).execute();
            await alongside(trx);
          });
        else await db.insertInto('users').values(row).execute();
      } catch (err) {
        const field = duplicateField(err);
        if (field) throw new DuplicateUserError(field);
        throw err;
      }
      return toUser(row);
    },

    async byId(id: string): Promise<User | null> {
      const row = await users().where('id', '=', id).executeTakeFirst();
      return row ? toUser(row) : null;
    },

    async byName(name: string): Promise<User | null> {
      const row = await users().where('name_key', '=', name.toLowerCase()).executeTakeFirst();
      return row ? toUser(row) : null;
    },

    async byEmail(email: string): Promise<User | null> {
      const row = await users().where('email_key', '=', email.toLowerCase()).executeTakeFirst();
      return row ? toUser(row) : null;
    },

    /** The id of the account an id or a name (or, with `email`, an email address) names; null when none. */
    async idOf(identity: string, email: boolean): Promise<string | null> {
      const lower = identity.toLowerCase();
      const row = await db
        .selectFrom('users')
        .select('id')
        .where((eb) =>
          eb.or([eb('id', '=', identity), eb('name_key', '=', lower), ...(email ? [eb('email_key', '=', lower)] : [])]),
        )
        .executeTakeFirst();
      return row?.id ?? null;
    },

    /** The names of these accounts by id (ids of removed accounts are left out). */
    async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('users').select(['id', 'name']).where('id', 'in', ids).execute();
      return new Map(rows.map((r) => [r.id, r.name]));
    },

    async nameTaken(name: string): Promise<boolean> {
      return (
        (await db.selectFrom('users').select('id').where('name_key', '=', name.toLowerCase()).executeTakeFirst()) !==
        undefined
      );
    },

    async emailTaken(email: string): Promise<boolean> {
      return (
        (await db.selectFrom('users').select('id').where('email_key', '=', email.toLowerCase()).executeTakeFirst()) !==
        undefined
      );
    },

    async update(id: string, changes: UserChanges): Promise<void> {
      const columns = toColumns(changes);
      if (Object.keys(columns).length === 0) return;
      try {
        await db.updateTable('users').set(columns).where('id', '=', id).execute();
      } catch (err) {
        const field = duplicateField(err);
        if (field) throw new DuplicateUserError(field);
        throw err;
      }
    },

    /**
     * A stored password hash made anew at another cost (users/sessions.ts), only where it is still
     * `from`: a password changed meanwhile is never put back. The password is the same, so this
     * is no change of the account (no event).
     */
    async rehashPassword(id: string, from: string, to: string): Promise<void> {
      await db
        .updateTable('users')
        .set({ password_hash: to })
        .where('id', '=', id)
        .where('password_hash', '=', from)
        .execute();
    },

    /**
     * Count one sign-in attempt of an account before its password is checked, unless it is
     * locked (then null). Counting first, in one statement, is what makes parallel attempts
     * count each (users/signin-throttle.ts).
     */
    async claimSigninAttempt(id: string, now: number): Promise<{ failures: number; lockouts: number } | null> {
      const row = await db
        .updateTable('users')
        .set((eb) => ({ failed_signins: eb('failed_signins', '+', 1) }))
        .where('id', '=', id)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .returning(['failed_signins', 'lockouts'])
        .executeTakeFirst();
      return row ? { failures: row.failed_signins, lockouts: row.lockouts } : null;
    },

    /** Lock the account until `until` once `threshold` attempts have counted; the count starts again. */
    async lockAfter(id: string, threshold: number, now: number, until: number): Promise<void> {
      await db
        .updateTable('users')
        .set((eb) => ({ locked_until: until, lockouts: eb('lockouts', '+', 1), failed_signins: 0 }))
        .where('id', '=', id)
        .where('failed_signins', '>=', threshold)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .execute();
    },

    /** Removes the account with its sessions and tokens; its name and email become free. */
    async remove(id: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('sessions').where('user_id', '=', id).execute();
        await trx.deleteFrom('user_tokens').where('user_id', '=', id).execute();
        const result = await trx.deleteFrom('users').where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      });
    },

    /** Whether an active account is in `group` (the first run: is there an administrator?). */
    async hasActiveMember(group: string): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where('state', '=', 'active')
        .where(memberOf(group))
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The email addresses of the active members of `group` (at most `limit`), in the order they joined. */
    async activeEmailsOf(group: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('users')
        .select('email')
        .where('state', '=', 'active')
        .where('email', 'is not', null)
        .where(memberOf(group))
        .orderBy('created')
        .limit(limit)
        .execute();
      return rows.flatMap((r) => (r.email ? [r.email] : []));
    },

    async list(query: ListQuery, size: number): Promise<{ users: User[]; total: number }> {
      let q = db.selectFrom('users');
      if (query.active !== undefined) q = q.where('state', '=', query.active ? 'active' : 'disabled');
      if (query.pending !== undefined) q = q.where('state', query.pending ? '=' : '!=', 'pending');
      if (query.name) q = q.where(sql<boolean>`name_key like ${containing(query.name)} escape '\\'`);
      if (query.email) q = q.where(sql<boolean>`email_key like ${containing(query.email)} escape '\\'`);
      if (query.search) {
        const pattern = containing(query.search);
        q = q.where(
          sql<boolean>`(name_key like ${pattern} escape '\\' or email_key like ${pattern} escape '\\'
            or lower(realname) like ${pattern} escape '\\')`,
        );
      }
      if (query.group) q = q.where(memberOf(query.group));
      const counted = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const column = query.sort === 'name' ? 'name_key' : query.sort === 'email' ? 'email_key' : query.sort;
      const direction = query.order === '>' ? 'desc' : 'asc';
      const rows =
        size === 0
          ? []
          : await q
              .selectAll()
              .orderBy(column, direction)
              .orderBy('id', direction)
              .limit(size)
              .offset(query.start - 1)
              .execute();
      return { users: rows.map(toUser), total: Number(counted.n) };
    },

    ...createSessionRepo(db),
    ...createTokenRepo(db),
    ...createThrottleRepo(db),

    /** Deletes expired sessions, tokens and provider flows (methods purge their own); returns how many rows went. */
    async purgeExpired(now: number): Promise<number> {
      const a = await db.deleteFrom('sessions').where('expires', '<=', now).executeTakeFirst();
      const b = await db.deleteFrom('user_tokens').where('expires', '<=', now).executeTakeFirst();
      const c = await db.deleteFrom('provider_flows').where('expires', '<=', now).executeTakeFirst();
      return [a, b, c].reduce((sum, r) => sum + Number(r.numDeletedRows), 0);
    },
  };
}

/** Rows whose JSON list of groups holds `group` (its quotes keep `admins` from matching `admins2`). */
function memberOf(group: string) {
  return sql<boolean>`${sql.ref('groups')} like ${`%${escapeLike(JSON.stringify(group))}%`} escape '\\'`;
}

export type UserRepo = ReturnType<typeof createUserRepo>;
