import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, PendingReason, UsersTable, UserState, UserTokenPurpose } from '../storage/schema.js';
import { isUniqueViolation } from '../storage/database-errors.js';
import type { ListQuery } from './user-inputs.js';
import type { SessionMethod } from './signin-methods/index.js';

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
}

export type UserChanges = Partial<Omit<User, 'id' | 'created'>>;

export interface NewSession {
  tokenHash: string;
  userId: string;
  method: SessionMethod;
  device: string | null;
  address: string | null;
  created: number;
  expires: number;
}

/** A session as its user and administrators see it: never its token or the token's hash. */
export interface SessionInfo {
  id: string;
  method: string;
  device: string;
  address: string;
  created: number;
  lastUsed: number;
  expires: number;
}

/** A session's account as `authenticate` needs it. */
export interface FoundSession {
  user: User;
  expires: number;
  lastUsed: number;
  /** The sign-in: the session's expiry never moves past `created` + `sessionMaxMs`. */
  created: number;
}

/**
 * A session's public id: the first 16 characters (96 bits) of its token's hash. It names the
 * session to its user and administrators; neither the token nor the whole hash can be had from it.
 */
export const sessionIdOf = (tokenHash: string): string => tokenHash.slice(0, 16);

/** Raised when an insert or update hits the unique name or email index. */
export class DuplicateUserError extends Error {
  override readonly name = 'DuplicateUserError';
  constructor(readonly field: 'name' | 'email') {
    super(`${field} exists`);
  }
}

const toUser = (row: Selectable<UsersTable>): User => ({
  id: row.id,
  name: row.name,
  email: row.email,
  realname: row.realname,
  passwordHash: row.password_hash,
  data: row.data,
  notify: row.notify === 1,
  groups: JSON.parse(row.groups) as string[],
  state: row.state,
  pending: row.pending,
  created: row.created,
  activity: row.activity,
  failedSignins: row.failed_signins,
  lockedUntil: row.locked_until,
  lockouts: row.lockouts,
});

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
    async insert(user: NewUser): Promise<User> {
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
      };
      try {
        await db.insertInto('users').values(row).execute();
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

    /**
     * Count one attempt under `key` in the window starting `windowStart` or later (an older
     * window starts again), in one statement so that parallel attempts each count; the count
     * after this one.
     */
    async countAttempt(key: string, now: number, windowStart: number): Promise<number> {
      const row = await db
        .insertInto('throttle_counts')
        .values({ key, window_start: now, count: 1 })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            count: sql<number>`case when throttle_counts.window_start < ${windowStart}
              then 1 else throttle_counts.count + 1 end`,
            window_start: sql<number>`case when throttle_counts.window_start < ${windowStart}
              then ${now} else throttle_counts.window_start end`,
          }),
        )
        .returning('count')
        .executeTakeFirstOrThrow();
      // A new window: forget the keys whose windows have passed (the table stays small).
      if (row.count === 1)
        await db
          .deleteFrom('throttle_counts')
          .where('window_start', '<', windowStart)
          .where('key', 'like', `${key.split(':')[0]}:%`)
          .execute();
      return row.count;
    },

    /** Give an attempt back (a successful sign-in: only failures count). */
    async refundAttempt(key: string): Promise<void> {
      await db
        .updateTable('throttle_counts')
        .set((eb) => ({ count: eb('count', '-', 1) }))
        .where('key', '=', key)
        .where('count', '>', 0)
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

    // Sessions: only the SHA-256 of a token is stored.
    async insertSession(session: NewSession): Promise<void> {
      await db
        .insertInto('sessions')
        .values({
          token_hash: session.tokenHash,
          id: sessionIdOf(session.tokenHash),
          user_id: session.userId,
          method: session.method,
          device: session.device,
          address: session.address,
          created: session.created,
          expires: session.expires,
          last_used: session.created,
        })
        .execute();
    },

    async sessionUser(tokenHash: string, now: number): Promise<FoundSession | null> {
      const row = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .selectAll('users')
        .select([
          'sessions.expires as session_expires',
          'sessions.last_used as session_last_used',
          'sessions.created as session_created',
        ])
        .where('sessions.token_hash', '=', tokenHash)
        .where('sessions.expires', '>', now)
        .executeTakeFirst();
      if (!row) return null;
      const { session_expires, session_last_used, session_created, ...user } = row;
      return {
        user: toUser(user),
        expires: session_expires,
        lastUsed: session_last_used ?? 0,
        created: session_created,
      };
    },

    /** Marks a session used at `lastUsed` and, when given, moves its expiry. */
    async touchSession(tokenHash: string, lastUsed: number, expires?: number): Promise<void> {
      await db
        .updateTable('sessions')
        .set(expires === undefined ? { last_used: lastUsed } : { last_used: lastUsed, expires })
        .where('token_hash', '=', tokenHash)
        .execute();
    },

    /** A user's sessions that have not expired, the most recently used first. */
    async sessionsOf(userId: string, now: number): Promise<SessionInfo[]> {
      const rows = await db
        .selectFrom('sessions')
        .select(['id', 'method', 'device', 'address', 'created', 'last_used', 'expires'])
        .where('user_id', '=', userId)
        .where('expires', '>', now)
        .orderBy('last_used', 'desc')
        .orderBy('id')
        .execute();
      return rows.map((r) => ({
        id: r.id,
        method: r.method,
        device: r.device ?? '',
        address: r.address ?? '',
        created: r.created,
        lastUsed: r.last_used ?? r.created,
        expires: r.expires,
      }));
    },

    /** Ends one session of a user by its public id; false when the user has no such session. */
    async deleteSessionById(userId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('sessions')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async deleteSession(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },

    /** Revokes every session of a user but `keep` (the caller's own, when it changes its password). */
    async deleteSessions(userId: string, keep?: string): Promise<void> {
      let q = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (keep) q = q.where('token_hash', '!=', keep);
      await q.execute();
    },

    // Single-use tokens for activation, email verification and reset.
    async insertToken(t: {
      tokenHash: string;
      userId: string;
      purpose: UserTokenPurpose;
      payload: string | null;
      created: number;
      expires: number;
    }): Promise<void> {
      await db
        .insertInto('user_tokens')
        .values({
          token_hash: t.tokenHash,
          user_id: t.userId,
          purpose: t.purpose,
          payload: t.payload,
          created: t.created,
          expires: t.expires,
        })
        .execute();
    },

    /**
     * Takes a token: deletes it and returns its user id and payload when it existed, had this
     * purpose and had not expired. Deleting first makes a second use fail even when two requests
     * race.
     */
    async takeToken(
      tokenHash: string,
      purpose: UserTokenPurpose,
      now: number,
    ): Promise<{ userId: string; payload: string | null } | null> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('user_tokens')
          .select(['user_id', 'payload', 'expires', 'purpose'])
          .where('token_hash', '=', tokenHash)
          .executeTakeFirst();
        if (!row || row.purpose !== purpose) return null;
        const deleted = await trx.deleteFrom('user_tokens').where('token_hash', '=', tokenHash).executeTakeFirst();
        if (Number(deleted.numDeletedRows) !== 1 || row.expires <= now) return null;
        return { userId: row.user_id, payload: row.payload };
      });
    },

    /**
     * An unused, unexpired token of `purpose`, found by its hash or (the newest) by its user,
     * without taking it (`takeToken` does that).
     */
    async pendingToken(
      by: { tokenHash: string } | { userId: string },
      purpose: UserTokenPurpose,
      now: number,
    ): Promise<{ tokenHash: string; userId: string; payload: string | null } | null> {
      let q = db
        .selectFrom('user_tokens')
        .select(['token_hash', 'user_id', 'payload'])
        .where('purpose', '=', purpose)
        .where('expires', '>', now);
      q = 'tokenHash' in by ? q.where('token_hash', '=', by.tokenHash) : q.where('user_id', '=', by.userId);
      const row = await q.orderBy('created', 'desc').executeTakeFirst();
      return row ? { tokenHash: row.token_hash, userId: row.user_id, payload: row.payload } : null;
    },

    async deleteTokens(userId: string, purpose: UserTokenPurpose): Promise<void> {
      await db.deleteFrom('user_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).execute();
    },

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
